import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collectListing,
  ConflictError,
  createPlantStore,
  ForbiddenError,
  NotFoundError,
  UnauthenticatedError,
  ValidationError,
  type Plant,
  type PlantEvents,
  type PlantStore,
  type Principal,
} from '@plant-store/core';
import { plantToJson, subscriptionId } from '@plant-store/core/adapter';
import { memoryStorage } from '@plant-store/storage-memory';
import { sqliteStorage } from '@plant-store/storage-sqlite';

const writer: Principal = { subject: 'w', tenant: 'acme', scopes: ['plants:read', 'plants:write'] };
const reader: Principal = { subject: 'r', tenant: 'acme', scopes: ['plants:read'] };
const other: Principal = { subject: 'o', tenant: 'globex', scopes: ['plants:read', 'plants:write'] };

let store: PlantStore;
let events: Array<[keyof PlantEvents, unknown]>;

beforeEach(() => {
  // A small batch size makes streaming and large pages cross batch borders.
  store = createPlantStore({
    storage: memoryStorage(),
    batchSize: 3,
    webhooks: { subscriptions: [{ url: 'http://127.0.0.1:9/hook', secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` }] },
  });
  events = [];
  store.events.on('*', (type, event) => events.push([type, event]));
});
afterEach(() => store.close());

const create = (plant: { id: bigint | number; name: string; tag?: string }, principal = writer) => store.plants.create(principal, plant);
const all = async (principal: Principal, options = {}) => collectListing(await store.plants.list(principal, options));

describe('create', () => {
  it('stores the plant, queues one delivery per matching subscription and emits plant.created after commit', async () => {
    const outcome = await create({ id: 9223372036854775807n, name: 'Fern', tag: 'green' });
    expect(outcome).toEqual({ created: true, plant: { id: 9223372036854775807n, name: 'Fern', tag: 'green' } });
    expect(events).toEqual([['plant.created', { tenant: 'acme', plant: outcome.plant }]]);
    const [delivery] = await store.allTenants.webhooks.list();
    expect(delivery).toMatchObject({
      tenant: 'acme',
      endpointId: subscriptionId('http://127.0.0.1:9/hook'),
      status: 'pending',
      payload: '{"id":9223372036854775807,"name":"Fern","tag":"green"}',
    });
  });

  it('is retry-safe: the same content returns the stored plant without a new event or delivery', async () => {
    await create({ id: 1, name: 'Fern' });
    const replay = await create({ id: 1n, name: 'Fern' });
    expect(replay).toEqual({ created: false, plant: { id: 1n, name: 'Fern' } });
    expect(events).toHaveLength(1);
    expect(await store.allTenants.webhooks.list()).toHaveLength(1);
  });

  it('rejects the same id with other content as a conflict, keeping the stored plant', async () => {
    await create({ id: 1, name: 'Fern' });
    await expect(create({ id: 1, name: 'Fern', tag: 'x' })).rejects.toBeInstanceOf(ConflictError);
    await expect(create({ id: 1, name: 'Palm' })).rejects.toBeInstanceOf(ConflictError);
    expect(await store.plants.get(writer, 1n)).toEqual({ id: 1n, name: 'Fern' });
  });

  it('validates input itself, naming the field', async () => {
    await expect(store.plants.create(writer, { id: '1', name: 'a' })).rejects.toMatchObject({ field: 'id' });
    await expect(store.plants.create(writer, { id: 2 ** 53, name: 'a' })).rejects.toMatchObject({ field: 'id' });
    await expect(store.plants.create(writer, { id: 1, name: 'a', tag: null })).rejects.toMatchObject({ field: 'tag' });
    await expect(store.plants.create(writer, { id: 1, name: 'a', tags: 'x' })).rejects.toBeInstanceOf(ValidationError);
    expect(await all(writer)).toEqual([]);
  });

  it('requires the write scope', async () => {
    await expect(create({ id: 1, name: 'a' }, reader)).rejects.toEqual(new ForbiddenError('plants:write'));
    await expect(store.plants.delete(reader, 1)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(store.plants.list({ ...reader, scopes: [] })).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('get and delete', () => {
  it('are scoped to the tenant', async () => {
    await create({ id: 5, name: 'acme plant' });
    await create({ id: 5, name: 'globex plant' }, other);
    expect(await store.plants.get(writer, 5)).toEqual({ id: 5n, name: 'acme plant' });
    await store.plants.delete(other, 5n);
    await expect(store.plants.get(other, 5)).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.plants.get(reader, 5)).toEqual({ id: 5n, name: 'acme plant' });
    expect(events.at(-1)).toEqual(['plant.deleted', { tenant: 'globex', id: 5n }]);
  });

  it('delete of a missing plant is not found and emits nothing', async () => {
    await expect(store.plants.delete(writer, 404)).rejects.toBeInstanceOf(NotFoundError);
    expect(events).toEqual([]);
  });

  it('deleteIfExists answers whether there was such a plant, with the checks and event of delete', async () => {
    await create({ id: 7, name: 'Fern' });
    expect(await store.plants.deleteIfExists(writer, 404)).toBe(false);
    expect(events.filter(([type]) => type === 'plant.deleted')).toEqual([]);
    expect(await store.plants.deleteIfExists(other, 7n)).toBe(false);
    expect(await store.plants.deleteIfExists(writer, 7n)).toBe(true);
    expect(events.at(-1)).toEqual(['plant.deleted', { tenant: 'acme', id: 7n }]);
    expect(await store.plants.deleteIfExists(writer, 7n)).toBe(false);
    await expect(store.plants.deleteIfExists(reader, 7n)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(store.plants.deleteIfExists(writer, 'seven')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('expected outcomes', () => {
  const frames = /\n\s+at /;
  const failure = (promise: Promise<unknown>): Promise<Error> =>
    promise.then(
      () => {
        throw new Error('expected a rejection');
      },
      (error: unknown) => error as Error,
    );
  it('are errors of their classes, built without stack frames (answered, not debugged)', async () => {
    const missing = await failure(store.plants.get(reader, 5n));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).toBe('plant 5 not found');
    expect(missing.stack).not.toMatch(frames);
    const gone = await failure(store.plants.delete(writer, 5n));
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone.stack).not.toMatch(frames);
    const forbidden = await failure(create({ id: 1, name: 'a' }, reader));
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(forbidden.stack).not.toMatch(frames);
    expect(ValidationError.of('id', 'bad').stack).not.toMatch(frames);
    // Stack capture is back to normal afterwards, and errors built directly keep theirs.
    expect(new NotFoundError('direct').stack).toMatch(frames);
    expect(new Error('plain').stack).toMatch(frames);
  });
});

describe('listAsJson', () => {
  // Storage writes the pages' JSON itself (PlantRepository.listJson); this suite runs it on SQLite.
  beforeEach(async () => {
    await store.close();
    store = createPlantStore({ storage: await sqliteStorage({ path: ':memory:' }), batchSize: 3 });
  });

  it('gives every small page as the JSON of the plants list returns, with the same next cursor', async () => {
    // Names that look like the wire form must not confuse where a plant begins.
    const names = ['a,{"id":9,"name":"x"}', '{"id":-1,', 'quote " and \\ and \n', 'plain', 'ünï 🌿', ',{"id":'];
    const ids = [-9223372036854775808n, -5n, 0n, 7n, 9007199254740993n, 9223372036854775807n];
    for (const [index, id] of ids.entries()) await create({ id, name: names[index]!, ...(index % 2 ? { tag: 't,{"id":1' } : {}) });
    for (const limit of [1, 2, 3]) {
      for (const after of [undefined, -5n, 7n, 9223372036854775807n]) {
        for (const tags of [undefined, ['t,{"id":1']]) {
          const options = { limit, ...(after === undefined ? {} : { after }), ...(tags ? { tags } : {}) };
          const listing = await store.plants.list(reader, options);
          const page = await store.plants.listAsJson(reader, options);
          expect(page).toEqual({
            json: `[${listing.page!.map(plantToJson).join(',')}]`,
            ...(listing.nextAfter === undefined ? {} : { nextAfter: listing.nextAfter }),
          });
        }
      }
    }
  });

  it('gives listings beyond one batch as list does', async () => {
    for (let id = 1; id <= 5; id++) await create({ id, name: `p${id}` });
    const page = await store.plants.listAsJson(reader, { limit: 4 });
    expect('json' in page).toBe(false);
    expect(await collectListing(page as Awaited<ReturnType<typeof store.plants.list>>)).toHaveLength(4);
    await expect(store.plants.listAsJson(other, { limit: 2 })).resolves.toEqual({ json: '[]' });
  });

  it('gives the listing as list does when storage cannot write JSON', async () => {
    const storage = memoryStorage();
    // The memory adapter's plants, minus the optional JSON listing.
    const plants = {
      create: storage.plants.create.bind(storage.plants),
      get: storage.plants.get.bind(storage.plants),
      list: storage.plants.list.bind(storage.plants),
      idAtOffset: storage.plants.idAtOffset.bind(storage.plants),
      delete: storage.plants.delete.bind(storage.plants),
    };
    const memory = createPlantStore({ storage: { ...storage, plants } });
    try {
      await memory.plants.create(writer, { id: 1, name: 'a' });
      const page = await memory.plants.listAsJson(reader, { limit: 2 });
      expect(page).toMatchObject({ page: [{ id: 1n, name: 'a' }] });
    } finally {
      await memory.close();
    }
  });
});

describe('getAsJson', () => {
  it('gives the JSON of the plant get returns, from storage that writes it and from storage that cannot', async () => {
    const storage = memoryStorage();
    // The memory adapter's plants, minus the optional JSON read.
    const bound = {
      create: storage.plants.create.bind(storage.plants),
      get: storage.plants.get.bind(storage.plants),
      list: storage.plants.list.bind(storage.plants),
      idAtOffset: storage.plants.idAtOffset.bind(storage.plants),
      delete: storage.plants.delete.bind(storage.plants),
    };
    const withoutJson = createPlantStore({ storage: { ...storage, plants: bound } });
    try {
      for (const target of [store, withoutJson]) {
        await target.plants.create(writer, { id: 9007199254740993n, name: 'quote " ünï 🌿', tag: 'red' });
        const json = await target.plants.getAsJson(reader, 9007199254740993n);
        expect(json).toBe(plantToJson(await target.plants.get(reader, 9007199254740993n)));
        await expect(target.plants.getAsJson(other, 9007199254740993n)).rejects.toMatchObject({ name: 'NotFoundError' });
        await expect(target.plants.getAsJson({ ...reader, scopes: [] }, 1)).rejects.toMatchObject({ name: 'ForbiddenError' });
        await expect(target.plants.getAsJson(reader, 'x')).rejects.toMatchObject({ name: 'ValidationError' });
      }
    } finally {
      await withoutJson.close();
    }
  });
});

describe('list', () => {
  const ids = [-9223372036854775808n, -10n, -2n, 0n, 2n, 10n, 9223372036854775807n];
  beforeEach(async () => {
    for (const [index, id] of [...ids].reverse().entries()) {
      await create({ id, name: `p${id}`, ...(index % 2 ? { tag: 'odd' } : {}) });
    }
    await create({ id: 3, name: 'other tenant' }, other);
  });

  it('returns every plant of the tenant in numeric order, streamed in batches', async () => {
    const listing = await store.plants.list(reader);
    const batches: Plant[][] = [];
    for await (const batch of listing.batches) batches.push(batch);
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(batches.flat().map((plant) => plant.id)).toEqual(ids);
    expect(listing.nextAfter).toBeUndefined();
  });

  it('pages with limit and after, giving nextAfter only while more remain', async () => {
    const seen: bigint[] = [];
    let after: bigint | undefined;
    for (let page = 0; page < 10; page++) {
      const listing = await store.plants.list(reader, { limit: 2, ...(after === undefined ? {} : { after }) });
      seen.push(...(await collectListing(listing)).map((plant) => plant.id));
      if (listing.nextAfter === undefined) break;
      after = listing.nextAfter;
    }
    expect(seen).toEqual(ids);
  });

  it('gives a small page as `page` too, the same plants its batches yield', async () => {
    const listing = await store.plants.list(reader, { limit: 2, after: -10n });
    const batches: Plant[][] = [];
    for await (const batch of listing.batches) batches.push(batch);
    expect(batches).toEqual([listing.page]);
    expect(listing.page!.map((plant) => plant.id)).toEqual([-2n, 0n]);
    expect(listing.nextAfter).toBe(0n);
    const empty = await store.plants.list(reader, { limit: 0 });
    expect(empty.page).toEqual([]);
    for await (const batch of empty.batches) expect.unreachable(`no batch expected, got ${batch.length}`);
    // Streamed listings have no page.
    expect((await store.plants.list(reader)).page).toBeUndefined();
    expect((await store.plants.list(reader, { limit: 5 })).page).toBeUndefined();
  });

  it('handles pages larger than a batch without loading them at once', async () => {
    const page = await store.plants.list(reader, { limit: 5 });
    expect((await collectListing(page)).map((plant) => plant.id)).toEqual(ids.slice(0, 5));
    expect(page.nextAfter).toBe(2n);
    const exact = await store.plants.list(reader, { limit: 7 });
    expect(await collectListing(exact)).toHaveLength(7);
    expect(exact.nextAfter).toBeUndefined();
    const beyond = await store.plants.list(reader, { limit: 2147483647, after: -3n });
    expect((await collectListing(beyond)).map((plant) => plant.id)).toEqual(ids.slice(2));
    expect(beyond.nextAfter).toBeUndefined();
  });

  it('filters by any of several tags and returns nothing for limit 0', async () => {
    expect((await all(reader, { tags: ['odd'] })).map((plant) => plant.id)).toEqual([-10n, 0n, 10n]);
    expect(await all(reader, { tags: ['odd', 'none'], after: 0n })).toHaveLength(1);
    expect(await all(reader, { tags: [] })).toHaveLength(ids.length);
    expect(await all(reader, { limit: 0 })).toEqual([]);
    expect((await store.plants.list(reader, { limit: 0 })).nextAfter).toBeUndefined();
  });

  it('rejects bad options naming them', async () => {
    await expect(store.plants.list(reader, { limit: -1 })).rejects.toMatchObject({ field: 'limit' });
    await expect(store.plants.list(reader, { limit: 2 ** 31 })).rejects.toMatchObject({ field: 'limit' });
    await expect(store.plants.list(reader, { after: 1.5 })).rejects.toMatchObject({ field: 'after' });
    await expect(store.plants.list(reader, { tags: [''] })).rejects.toMatchObject({ field: 'tags.0' });
    await expect(store.plants.list(reader, { limt: 5 } as never)).rejects.toMatchObject({ field: 'limt', message: "unknown property 'limt'" });
  });
});

describe('authenticate', () => {
  it('rejects missing credentials and unknown tokens with distinct reasons', async () => {
    await expect(store.authenticate(undefined)).rejects.toEqual(new UnauthenticatedError('missing_credentials'));
    await expect(store.authenticate('nope')).rejects.toMatchObject({ reason: 'invalid_token' });
  });
});
