import { describe, expect, it } from 'vitest';
import type { Principal } from '../domain/principal.js';
import type { Authenticator } from '../ports/authenticator.js';
import { firstAuthenticator } from './first-authenticator.js';
import { staticTokens } from './static-tokens.js';

const failing = (message: string): Authenticator => ({
  authenticate: () => Promise.reject(new Error(message)),
});
const recording = (calls: string[], name: string, principal?: Principal): Authenticator => ({
  async authenticate() {
    calls.push(name);
    return principal;
  },
});

describe('firstAuthenticator', () => {
  const a = staticTokens([{ token: 'token-a', tenant: 'a', subject: 'from-a' }]);
  const b = staticTokens([
    { token: 'token-b', tenant: 'b', subject: 'from-b' },
    { token: 'token-a', tenant: 'b', subject: 'shadowed' },
  ]);

  it('asks in order; the first principal wins', async () => {
    const auth = firstAuthenticator(a, b);
    expect((await auth.authenticate('token-a'))?.subject).toBe('from-a');
    expect((await auth.authenticate('token-b'))?.subject).toBe('from-b');
    expect(await auth.authenticate('token-c')).toBeUndefined();
  });

  it('stops at the first principal', async () => {
    const calls: string[] = [];
    const principal: Principal = { subject: 's', tenant: 't', scopes: [] };
    const auth = firstAuthenticator(recording(calls, 'one'), recording(calls, 'two', principal), recording(calls, 'three'));
    expect(await auth.authenticate('x')).toBe(principal);
    expect(calls).toEqual(['one', 'two']);
  });

  it('with none given, knows no token', async () => {
    expect(await firstAuthenticator().authenticate('token-a')).toBeUndefined();
  });

  it('rejects with the first failure when no one knows the token, but a later principal still wins', async () => {
    const auth = firstAuthenticator(failing('first down'), failing('second down'), a);
    await expect(auth.authenticate('token-c')).rejects.toThrow('first down');
    expect((await auth.authenticate('token-a'))?.subject).toBe('from-a');
  });
});
