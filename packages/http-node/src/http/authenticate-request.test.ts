import type { IncomingMessage } from 'node:http';
import { ROOT_CONTEXT, createContextKey } from '@opentelemetry/api';
import type { PlantStore, Principal } from '@plant-store/core';
import { describe, expect, it } from 'vitest';
import { authenticateRequest } from './authenticate-request.js';

// Every field a principal can have but its trace context: `Required` makes this fail to compile when
// Principal gains a field, which the traced copy (written out field by field) must then carry too.
const shared: Required<Omit<Principal, 'traceContext'>> = {
  subject: 'portal-link:pl_1',
  tenant: 'acme',
  scopes: ['plants:read'],
  expiresAt: 1_900_000_000_000,
};

function storeAnswering(principal: Principal): PlantStore {
  return { authenticate: async (token: string) => (token === 'good' ? principal : Promise.reject(new Error('unknown token'))) } as unknown as PlantStore;
}

const request = (authorization: string) => ({ headers: { authorization } }) as IncomingMessage;

describe('authenticateRequest', () => {
  it('hands back the authenticator’s principal as it is outside a trace', async () => {
    const principal = await authenticateRequest(storeAnswering(shared), { req: request('Bearer good'), traceContext: undefined });
    expect(principal).toBe(shared);
  });

  it('in a trace, hands back a copy with every field of the principal and the trace context, leaving the shared one untouched', async () => {
    const traceContext = ROOT_CONTEXT.setValue(createContextKey('request'), 'span');
    const principal = await authenticateRequest(storeAnswering(shared), { req: request('Bearer good'), traceContext });
    expect(principal).not.toBe(shared);
    expect(principal).toEqual({ ...shared, traceContext });
    expect(shared).not.toHaveProperty('traceContext');
  });

  it('leaves out an expiry the principal does not have', async () => {
    const { expiresAt: _expiresAt, ...lasting } = shared;
    const principal = await authenticateRequest(storeAnswering(lasting), { req: request('Bearer good'), traceContext: ROOT_CONTEXT });
    expect(Object.keys(principal).sort()).toEqual(['scopes', 'subject', 'tenant', 'traceContext']);
  });

  it('refuses a request without a bearer token', async () => {
    await expect(authenticateRequest(storeAnswering(shared), { req: request('Basic abc'), traceContext: ROOT_CONTEXT })).rejects.toMatchObject({
      reason: 'missing_credentials',
    });
  });
});
