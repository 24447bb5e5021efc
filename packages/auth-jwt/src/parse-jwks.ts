import { ValidationError } from '@plant-store/core';
import type { JSONWebKeySet } from 'jose';

/** Key types of the accepted algorithms: RSA (RS256, PS256), EC (ES256), OKP (EdDSA). */
const VERIFYING_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);

/** A parsed JSON Web Key Set of public keys, else a `ValidationError`: a set that can never verify is best reported at start, not as 401s. */
export function parseJwks(value: unknown): JSONWebKeySet {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== 'object' || value === null || !Array.isArray(keys)) {
    throw ValidationError.of('keys', 'a JWKS must be a JSON object {"keys": [...]}');
  }
  keys.forEach((key: unknown, index) => {
    const field = `keys[${index}]`;
    if (typeof key !== 'object' || key === null || typeof (key as { kty?: unknown }).kty !== 'string') {
      throw ValidationError.of(field, `${field}: a key must be an object with a "kty"`);
    }
    if ('d' in key || (key as { kty: string }).kty === 'oct') {
      throw ValidationError.of(field, `${field}: private or symmetric key material does not belong in a JWKS`);
    }
  });
  if (!keys.some((key: { kty: string }) => VERIFYING_KEY_TYPES.has(key.kty))) {
    throw ValidationError.of('keys', 'the JWKS has no RSA, EC or OKP key (RS256, PS256, ES256 and EdDSA are accepted)');
  }
  return value as JSONWebKeySet;
}

export function parseJwksFile(path: string, text: string): JSONWebKeySet {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ValidationError.of('keys', `${path}: not valid JSON (expected a JWKS {"keys": [...]})`);
  }
  try {
    return parseJwks(value);
  } catch (error) {
    throw error instanceof ValidationError ? ValidationError.of(error.field, `${path}: ${error.message}`) : error;
  }
}
