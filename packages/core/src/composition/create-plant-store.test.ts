import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import { staticTokens } from '../auth/static-tokens.js';
import type { Principal } from '../domain/principal.js';
import { AuthenticationUnavailableError, ConfigurationError, LimitExceededError, StorageError, ValidationError } from '../errors.js';
import type { Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookRequest, WebhookTransport } from '../ports/webhook-transport.js';
import { subscriptionId } from '../webhooks/webhook-subscription.js';
import { createPlantStore } from './create-plant-store.js';
import { eventually } from '../../../../test/support/eventually.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const admin: Principal = { subject: 'a', tenant: 'acme', scopes: ['plants:read', 'plants:write'] };

describe('createPlantStore', () => {
  it('gives two stores in one process nothing in common', async () => {
    const first = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 'one', tenant: 'acme' }]) });
    const second = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 'two', tenant: 'acme' }]) });
    const seen: string[] = [];
    first.events.on('plant.created', () => seen.push('first'));
    second.events.on('plant.created', () => seen.push('second'));

    await first.plants.create(admin, { id: 1, name: 'only in first' });
    expect(seen).toEqual(['first']);
    expect(first.plants).not.toBe(second.plants);
    expect(first.events).not.toBe(second.events);
    await expect(second.plants.get(admin, 1)).rejects.toMatchObject({ code: 'not_found' });
    await expect(second.authenticate('one')).rejects.toMatchObject({ reason: 'invalid_token' });
    expect(await first.authenticate('one')).toMatchObject({ tenant: 'acme' });

    await first.close();
    // Closing one store leaves the other working.
    await second.plants.create(admin, { id: 2, name: 'still fine' });
    await second.close();
  });

  it('keeps working when a host listener throws (the commit already happened)', async () => {
    const store = createPlantStore({ storage: memoryStorage() });
    store.events.on('plant.created', () => {
      throw new Error('host bug');
    });
    await expect(store.plants.create(admin, { id: 1, name: 'x' })).resolves.toMatchObject({ created: true });
    expect(await store.plants.get(admin, 1)).toEqual({ id: 1n, name: 'x' });
    await store.close();
  });

  it('rejects bad webhook subscriptions naming the entry', () => {
    const create = (subscription: object) => createPlantStore({ storage: memoryStorage(), webhooks: { subscriptions: [subscription as never] } });
    expect(() => create({ url: 'ftp://x', secret: `whsec_${Buffer.alloc(24).toString('base64')}` })).toThrow(/webhooks\[0\]|url/);
    expect(() => create({ url: 'http://x', secret: `whsec_${Buffer.alloc(16).toString('base64')}` })).toThrow(ValidationError);
    expect(() => create({ url: 'http://x', secret: 'plain' })).toThrow(/whsec_/);
  });

  it('lets a host replace every port through its options: storage, clock, logger, authenticator, webhook transport', async () => {
    const at = Date.UTC(2030, 0, 1);
    const clock: Clock = { now: () => at };
    const logged: string[] = [];
    const logger: Logger = {
      debug: (m) => void logged.push(m),
      info: (m) => void logged.push(m),
      warn: (m) => void logged.push(m),
      error: (m) => void logged.push(m),
    };
    const authenticator: Authenticator = { authenticate: async (token) => (token === 'host-session' ? admin : undefined) };
    const sent: WebhookRequest[] = [];
    const transport: WebhookTransport = { send: async (request) => (sent.push(request), { kind: 'delivered', statusCode: 202 }) };
    const secret = newSecret();
    const storage = memoryStorage();
    const store = createPlantStore({
      storage,
      clock,
      logger,
      authenticator,
      webhooks: { transport, subscriptions: [{ url: 'https://hooks.example/x', secret }] },
    });
    try {
      expect(await store.authenticate('host-session')).toBe(admin);
      await expect(store.authenticate('other')).rejects.toMatchObject({ reason: 'invalid_token' });
      await store.plants.create(await store.authenticate('host-session'), { id: 1, name: 'Fern' });
      await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'delivered', 'delivery through the host transport');
      // The host's storage holds it, dated by the host's clock, and the host's transport sent it, signed at that time.
      const [delivery] = (await storage.outbox.list())!;
      expect(delivery).toMatchObject({ createdAt: at, endpointId: subscriptionId('https://hooks.example/x'), attempts: [{ at, statusCode: 202 }] });
      expect(sent).toHaveLength(1);
      expect(sent[0]!.headers['webhook-timestamp']).toBe(String(at / 1000));
      expect(sent[0]!.signal).toBeInstanceOf(AbortSignal);
      // The host's logger hears about it.
      expect(logged).toContain('webhook delivered');
    } finally {
      await store.close();
    }
  });

  it('asks the host authenticator for every token a portal link does not own, and reports its failures as unavailable', async () => {
    const asked: string[] = [];
    const linkShaped = `psl_${'A'.repeat(16)}_${'B'.repeat(43)}`;
    const authenticator: Authenticator = {
      authenticate: (token) => {
        asked.push(token);
        if (token === 'throws') throw new Error('directory down');
        if (token === 'rejects') return Promise.reject(Object.assign(new Error('directory down'), { retryAfterMs: 2500 }));
        // Not a promise, against the port's type: a JavaScript host may still do it.
        if (token === 'plain') return admin as unknown as Promise<Principal>;
        return Promise.resolve(token === linkShaped || token === 'known' ? admin : undefined);
      },
    };
    const store = createPlantStore({ storage: memoryStorage(), authenticator });
    try {
      expect(await store.authenticate('known')).toBe(admin);
      // Shaped like a link token but no link's: the host still decides.
      expect(await store.authenticate(linkShaped)).toBe(admin);
      await expect(store.authenticate('unknown')).rejects.toMatchObject({ reason: 'invalid_token' });
      // A host that throws instead of rejecting still gets an answer, not a thrown call.
      const thrown = store.authenticate('throws');
      expect(thrown).toBeInstanceOf(Promise);
      await expect(thrown).rejects.toBeInstanceOf(AuthenticationUnavailableError);
      await expect(store.authenticate('rejects')).rejects.toMatchObject({ retryAfterMs: 2500 });
      expect(await store.authenticate('plain')).toBe(admin);
      await expect(store.authenticate('')).rejects.toMatchObject({ reason: 'missing_credentials' });
      expect(asked).toEqual(['known', linkShaped, 'unknown', 'throws', 'rejects', 'plain']);
    } finally {
      await store.close();
    }
  });

  it('answers ready() while storage works, and a StorageError once it is closed', async () => {
    const store = createPlantStore({ storage: memoryStorage() });
    await expect(store.ready()).resolves.toBeUndefined();
    expect(store).not.toHaveProperty('storage');
    await store.close();
    await expect(store.ready()).rejects.toBeInstanceOf(StorageError);
  });

  it('wraps a storage that fails readiness with something other than a StorageError', async () => {
    const storage = memoryStorage();
    const store = createPlantStore({
      storage: {
        ...storage,
        plants: storage.plants,
        outbox: storage.outbox,
        ping: async () => Promise.reject(new Error('socket closed')),
        close: () => storage.close(),
      },
    });
    const error = await store.ready().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).cause).toEqual(new Error('socket closed'));
    await store.close();
  });

  it('gives subscriptions ids (derived from the url unless given) and refuses two with one id', () => {
    const create = (subscriptions: object[]) => createPlantStore({ storage: memoryStorage(), webhooks: { subscriptions: subscriptions as never } });
    const url = 'https://hooks.example/x';
    expect(subscriptionId(url)).toMatch(/^sub_[0-9a-f]{24}$/);
    expect(subscriptionId(url)).toBe(subscriptionId(url));
    expect(subscriptionId(url)).not.toBe(subscriptionId(`${url}/`));
    expect(() =>
      create([
        { url, secret: newSecret() },
        { url, secret: newSecret(), tenant: 'acme' },
      ]),
    ).toThrow(expect.objectContaining({ field: 'webhooks[1].id', message: expect.stringMatching(/already used by webhooks\[0\]/) }));
    expect(() =>
      create([
        { id: 'a', url: 'https://one.example/', secret: newSecret() },
        { id: 'a', url: 'https://two.example/', secret: newSecret() },
      ]),
    ).toThrow(ValidationError);
    // The same url twice is fine with distinct ids (e.g. one secret per tenant).
    void create([
      { id: 'acme', url, secret: newSecret(), tenant: 'acme' },
      { id: 'globex', url, secret: newSecret(), tenant: 'globex' },
    ]).close();
    expect(() => create([{ id: 'has space', url, secret: newSecret() }])).toThrow(expect.objectContaining({ field: 'webhooks[0].id' }));
    expect(() => create([{ id: '', url, secret: newSecret() }])).toThrow(ValidationError);
  });

  it('caps endpoints per tenant (maxEndpointsPerTenant) with a LimitExceededError naming the limit, and refuses a cap that is not a positive integer', async () => {
    const owner: Principal = { subject: 'o', tenant: 'acme', scopes: ['webhooks:read', 'webhooks:write'] };
    const store = createPlantStore({ storage: memoryStorage(), webhooks: { maxEndpointsPerTenant: 1 } });
    await store.webhooks.endpoints.create(owner, { url: 'https://one.example/' });
    const refused = await store.webhooks.endpoints.create(owner, { url: 'https://two.example/' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LimitExceededError);
    expect(refused).toMatchObject({ code: 'limit_exceeded', limit: 1, message: 'a tenant may have at most 1 webhook endpoint' });
    expect((await store.webhooks.endpoints.list(owner)).endpoints).toHaveLength(1);
    await store.close();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createPlantStore({ storage: memoryStorage(), webhooks: { maxEndpointsPerTenant: bad } })).toThrow(ConfigurationError);
    }
  });

  it('close is idempotent: however often it is called, storage is closed once and every call resolves with it', async () => {
    const storage = memoryStorage();
    let closes = 0;
    let finishClose!: () => void;
    const storageClosed = new Promise<void>((resolve) => (finishClose = resolve));
    const counted = {
      ...storage,
      plants: storage.plants,
      outbox: storage.outbox,
      ping: () => storage.ping(),
      close: async () => {
        closes++;
        await storageClosed;
        await storage.close();
      },
    };
    const store = createPlantStore({ storage: counted, webhooks: { subscriptions: [{ url: 'https://hooks.example/x', secret: newSecret() }] } });
    const first = store.close();
    const second = store.close();
    expect(second).toBe(first);
    let settled = false;
    void Promise.all([first, second]).then(() => (settled = true));
    await eventually(() => closes === 1, 'storage close to start');
    // Neither call resolves before storage has closed.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    finishClose();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
    await expect(store.close()).resolves.toBeUndefined();
    expect(store.close()).toBe(first);
    expect(closes).toBe(1);
    await expect(store.ready()).rejects.toBeInstanceOf(StorageError);
  });
});
