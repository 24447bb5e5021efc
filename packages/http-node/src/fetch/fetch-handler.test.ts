import { describe, expect, it } from 'vitest';
import { createPlantStore, staticTokens } from '@plant-store/core';
import { memoryStorage } from '@plant-store/storage-memory';
import { createFetchHandler } from './fetch-handler.js';

// In-process Requests, as Next.js route handlers, Bun or Deno hand them over: no socket, often no content-length.
const handler = () =>
  createFetchHandler(createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 't', tenant: 'acme' }]) }), { basePath: '/api' });
const headers = { authorization: 'Bearer t', 'content-type': 'application/json' };

describe('createFetchHandler', () => {
  it('reads a body that declares no length, on routes where the body is optional too', async () => {
    const api = handler();
    const created = await api(new Request('http://host/api/webhooks/endpoints', { method: 'POST', headers, body: '{"url":"https://example.com/hook"}' }));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // Rotating takes an optional body: without one, a new random secret.
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"secret":'));
        controller.enqueue(new TextEncoder().encode(JSON.stringify(secret) + '}'));
        controller.close();
      },
    });
    const init = { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit;
    const rotated = await api(new Request(`http://host/api/webhooks/endpoints/${id}/rotate-secret`, init));
    expect(rotated.status).toBe(200);
    expect(await rotated.json()).toEqual({ secret });
  });

  it('answers HEAD and 204 without a body, and paths outside the base path with its 404', async () => {
    const api = handler();
    await api(new Request('http://host/api/plants', { method: 'POST', headers, body: '{"id":1,"name":"Fern"}' }));
    const head = await api(new Request('http://host/api/plants?limit=1', { method: 'HEAD', headers }));
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const deleted = await api(new Request('http://host/api/plants/1', { method: 'DELETE', headers }));
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    const outside = await api(new Request('http://host/plants', { headers }));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toEqual({ error: 404, message: 'no resource at this path (see /api/openapi.json)' });
  });

  it('refuses a body something else already read, saying how to mount the API', async () => {
    const request = new Request('http://host/api/plants', { method: 'POST', headers, body: '{"id":2,"name":"Fern"}' });
    await request.text();
    const response = await handler()(request);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { message: string }).message).toContain('mount the plant API before body parsers');
  });
});
