import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  ConflictError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  StorageError,
  UnauthenticatedError,
  ValidationError,
} from '@plant-store/core';
import { errorBody, errorResponse } from './error-response.js';
import { HttpError } from './http-error.js';

describe('errorResponse', () => {
  it('maps each typed error to its status, keeping its message', () => {
    expect(errorResponse(ValidationError.of('name', 'name is required'))).toEqual({ status: 400, message: 'name is required', headers: [] });
    expect(errorResponse(new ConflictError('a plant with id 1 already exists'))).toMatchObject({ status: 409 });
    expect(errorResponse(new NotFoundError('plant 1 not found'))).toMatchObject({ status: 404, message: 'plant 1 not found' });
    expect(errorResponse(new LimitExceededError('at most 2', 2))).toEqual({ status: 422, message: 'at most 2', headers: [] });
    expect(errorResponse(new HttpError(405, 'no', ['allow', 'GET']))).toEqual({ status: 405, message: 'no', headers: ['allow', 'GET'] });
  });

  it('adds the RFC 6750 challenges', () => {
    expect(errorResponse(new UnauthenticatedError('missing_credentials'))).toEqual({
      status: 401,
      message: 'missing bearer token',
      headers: ['www-authenticate', 'Bearer realm="plant-store"'],
    });
    expect(errorResponse(new UnauthenticatedError('invalid_token')).headers).toEqual(['www-authenticate', 'Bearer realm="plant-store", error="invalid_token"']);
    expect(errorResponse(new ForbiddenError('plants:write'))).toEqual({
      status: 403,
      message: 'this operation requires the plants:write scope',
      headers: ['www-authenticate', 'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"'],
    });
  });

  it('hides storage and unexpected failures behind generic messages', () => {
    expect(errorResponse(new StorageError('SQLITE_CORRUPT in /var/db', { cause: new Error('x') }))).toEqual({
      status: 503,
      message: 'storage unavailable',
      headers: [],
    });
    for (const error of [new TypeError('secret internals'), new ConfigurationError('PORT', 'bad'), 'a string', undefined]) {
      expect(errorResponse(error)).toEqual({ status: 500, message: 'internal server error', headers: [] });
    }
  });
});

describe('errorBody', () => {
  it('writes the error shape with the message escaped', () => {
    expect(JSON.parse(errorBody(400, 'unknown property \'"x"\''))).toEqual({ error: 400, message: 'unknown property \'"x"\'' });
    expect(errorBody(404, 'gone')).toBe('{"error":404,"message":"gone"}');
  });
});

describe('HttpError', () => {
  it('is built without stack frames (every one is an answer to a client), and leaves stack capture as it was', () => {
    const error = new HttpError(404, 'no resource at this path', ['allow', 'GET']);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('no resource at this path');
    expect(error.stack).not.toMatch(/\n\s+at /);
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });
});
