import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '@plant-store/core';
import { PLANT_FIELDS, type Storage } from '@plant-store/core/adapter';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PlantStoreClientError,
  RequestFailedError,
  UnauthenticatedError,
  UnavailableError,
  ValidationError,
  WebhookVerificationError,
  createPlantStoreClient,
  verifyWebhook,
  type Plant,
  type PlantStoreClient,
} from '@plant-store/client';
import { PLANT_TEXT_FIELDS } from '../../packages/client/src/plant.js';
import { reservePort, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { startService, type TestService } from '../support/webhook-test-service.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

const MAX = 9223372036854775807n;
const MIN = -9223372036854775808n;

/** A client whose requests are recorded (method and URL), to count pages and prove nothing was sent. */
function recordingClient(baseUrl: string, token: string): { client: PlantStoreClient; requests: string[] } {
  const requests: string[] = [];
  const client = createPlantStoreClient({
    baseUrl,
    token,
    fetch: (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${String(input).slice(baseUrl.length)}`);
      return fetch(input, init);
    },
  });
  return { client, requests };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The rejection of `promise`, which must be an instance of `type`. */
async function failure<E>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

describe("the client's plant fields", () => {
  it("are the service's field table: the id, then its text fields in order, each required or optional alike", () => {
    const fields = Object.entries(PLANT_FIELDS) as [string, { type: string; optional?: true }][];
    expect(fields[0]).toMatchObject(['id', { type: 'int64' }]);
    const textFields = fields.slice(1).map(([name, field]) => [name, field.type === 'text' && (field.optional ? 'optional' : 'required')]);
    expect(Object.entries(PLANT_TEXT_FIELDS)).toEqual(textFields);
  });
});

describe.each(STORAGE_KINDS)('typed client against the real service (%s storage)', (kind) => {
  let server: TestServer;
  let owner: PlantStoreClient;
  beforeAll(async () => {
    server = await startTestServer(kind);
    owner = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.owner });
  });
  afterAll(() => server.close());

  let nextBase = 0;
  let base = 0n;
  beforeEach(() => {
    base = BigInt(++nextBase * 1000);
  });

  it('creates, gets and deletes plants, with exact bigint ids and no tag when absent', async () => {
    const created = await owner.plants.create({ id: base, name: 'Fern', tag: 'green' });
    expect(created).toEqual({ id: base, name: 'Fern', tag: 'green' });
    expect(await owner.plants.get(base)).toEqual(created);
    const untagged = await owner.plants.create({ id: Number(base) + 1, name: 'Cactus' });
    expect(untagged).toEqual({ id: base + 1n, name: 'Cactus' });
    expect('tag' in untagged).toBe(false);
    // Retry-safe: the same create again returns the stored plant.
    expect(await owner.plants.create({ id: base, name: 'Fern', tag: 'green' })).toEqual(created);
    await owner.plants.delete(base);
    const gone = await failure(owner.plants.get(base), NotFoundError);
    expect(gone).toMatchObject({ status: 404, code: 'not_found', message: expect.stringContaining(String(base)) });
    expect(gone.requestId).toMatch(/^[0-9a-f-]{36}$/);
    await failure(owner.plants.delete(base), NotFoundError);
  });

  it.each([MAX, MIN])('keeps %s exact through create, get, list and delete', async (id) => {
    const other = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.otherTenant });
    expect(await other.plants.create({ id, name: 'extreme' })).toEqual({ id, name: 'extreme' });
    expect((await other.plants.get(id)).id).toBe(id);
    const page = await other.plants.listPage(id === MIN ? { limit: 1 } : { after: id - 1n, limit: 1 });
    expect(page.plants).toEqual([{ id, name: 'extreme' }]);
    expect((await collect(other.plants.list())).map((plant) => plant.id)).toContain(id);
    await other.plants.delete(id);
    await failure(other.plants.get(id), NotFoundError);
  });

  it('refuses ids it cannot send exactly, before sending anything', async () => {
    const { client, requests } = recordingClient(server.url, TOKENS.owner);
    await expect(client.plants.get(2 ** 53)).rejects.toThrow(RangeError);
    await expect(client.plants.create({ id: 1.5, name: 'x' })).rejects.toThrow(RangeError);
    await expect(client.plants.delete(MAX + 1n)).rejects.toThrow(RangeError);
    await expect(collect(client.plants.list({ after: MIN - 1n }))).rejects.toThrow(RangeError);
    expect(requests).toEqual([]);
  });

  describe('listing', () => {
    // Tenant b's plants, created in scrambled order; other tests use tenant b only for ids they delete again.
    const ids = [MIN, -5n, 0n, 3n, 7n, 12n, 40n, 41n, 42n, MAX];
    const tagOf = (index: number) => (index % 3 === 0 ? undefined : index % 3 === 1 ? 'a b&c' : 'plain');
    const expected: Plant[] = ids.map((id, index) => {
      const tag = tagOf(index);
      return tag === undefined ? { id, name: `p${index}` } : { id, name: `p${index}`, tag };
    });
    let reader: ReturnType<typeof recordingClient>;
    beforeAll(async () => {
      const other = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.otherTenant });
      for (const index of [3, 0, 9, 5, 1, 8, 6, 2, 7, 4]) await other.plants.create(expected[index]!);
    });
    beforeEach(() => {
      reader = recordingClient(server.url, TOKENS.otherTenant);
    });

    it('streams every plant in one request without a limit', async () => {
      expect(await collect(reader.client.plants.list())).toEqual(expected);
      expect(reader.requests).toEqual(['GET /plants']);
    });

    it('follows Link page by page, one request per page of `limit`', async () => {
      for (const limit of [1, 3, 4, 9, 10, 11]) {
        reader.requests.length = 0;
        expect(await collect(reader.client.plants.list({ limit }))).toEqual(expected);
        expect(reader.requests).toHaveLength(Math.ceil(ids.length / limit));
        expect(reader.requests[0]).toBe(`GET /plants?limit=${limit}`);
      }
      reader.requests.length = 0;
      await collect(reader.client.plants.list({ limit: 4, after: MIN }));
      expect(reader.requests).toEqual([`GET /plants?limit=4&after=${MIN}`, 'GET /plants?limit=4&after=7', 'GET /plants?limit=4&after=42']);
    });

    it('requests the next page only when the consumer gets to it', async () => {
      for await (const plant of reader.client.plants.list({ limit: 2 })) {
        expect(plant).toEqual(expected[0]);
        break;
      }
      expect(reader.requests).toEqual(['GET /plants?limit=2']);
    });

    it('hands out single pages whose `next` leads to the following one', async () => {
      const pages: Plant[][] = [];
      let page = await reader.client.plants.listPage({ limit: 4, tags: ['plain', 'a b&c'] });
      pages.push(page.plants);
      while (page.next) {
        expect(page.next).toEqual({ limit: 4, after: page.plants.at(-1)!.id, tags: ['plain', 'a b&c'] });
        page = await reader.client.plants.listPage(page.next);
        pages.push(page.plants);
      }
      expect(pages.map((plants) => plants.length)).toEqual([4, 2]);
      expect(pages.flat()).toEqual(expected.filter((plant) => plant.tag !== undefined));
      expect(reader.requests).toEqual(['GET /plants?limit=4&tag=plain&tag=a+b%26c', 'GET /plants?limit=4&after=12&tag=plain&tag=a+b%26c']);
    });

    it('filters by tags and starts after an id', async () => {
      expect(await collect(reader.client.plants.list({ tags: ['plain'] }))).toEqual(expected.filter((plant) => plant.tag === 'plain'));
      expect(await collect(reader.client.plants.list({ after: 40, limit: 2 }))).toEqual(expected.slice(7));
      expect(await reader.client.plants.listPage({ after: MAX })).toEqual({ plants: [] });
      expect(await reader.client.plants.listPage({ limit: 0 })).toEqual({ plants: [] });
    });

    it('tells a listing that is not allowed apart from an empty one', async () => {
      const writer = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.writer });
      const denied = await failure(collect(writer.plants.list()), ForbiddenError);
      expect(denied).toMatchObject({ status: 403, code: 'forbidden', requiredScope: 'plants:read' });
      await failure(reader.client.plants.listPage({ limit: -1 }), ValidationError);
    });
  });

  describe('errors', () => {
    it('401: no token and an unknown token, with the reason from the challenge', async () => {
      const anonymous = createPlantStoreClient({ baseUrl: server.url, token: '' });
      const missing = await failure(anonymous.plants.get(1), UnauthenticatedError);
      expect(missing).toMatchObject({ status: 401, code: 'unauthenticated', reason: 'missing_credentials' });
      const stranger = createPlantStoreClient({ baseUrl: server.url, token: 'nobody' });
      const invalid = await failure(stranger.plants.create({ id: base, name: 'x' }), UnauthenticatedError);
      expect(invalid).toMatchObject({ status: 401, reason: 'invalid_token', message: expect.any(String) });
      expect(invalid).toBeInstanceOf(PlantStoreClientError);
    });

    it('403: a read-only token creating or deleting names the missing scope', async () => {
      const reader = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.reader });
      for (const attempt of [reader.plants.create({ id: base, name: 'no' }), reader.plants.delete(base)]) {
        const denied = await failure(attempt, ForbiddenError);
        expect(denied).toMatchObject({ status: 403, code: 'forbidden', requiredScope: 'plants:write' });
        expect(denied.message).toMatch(/plants:write/);
      }
    });

    it('409: the same id with other content; 400: a rule broken, naming the field', async () => {
      await owner.plants.create({ id: base, name: 'Aloe' });
      const conflict = await failure(owner.plants.create({ id: base, name: 'Aloe vera' }), ConflictError);
      expect(conflict).toMatchObject({ status: 409, code: 'conflict', message: expect.stringContaining(String(base)) });
      const invalid = await failure(owner.plants.create({ id: base + 1n, name: '' }), ValidationError);
      expect(invalid).toMatchObject({ status: 400, code: 'validation', message: expect.stringMatching(/\bname\b/) });
      // A typo a JavaScript caller could make reaches the service, which names it.
      const typo = { id: base + 2n, name: 'x', tags: 'y' } as unknown as Plant;
      expect((await failure(owner.plants.create(typo), ValidationError)).message).toMatch(/unknown property 'tags'/);
    });

    it('other statuses and network failures are RequestFailedError', async () => {
      const tooLarge = await failure(owner.plants.create({ id: base, name: 'n'.repeat(70_000) }), RequestFailedError);
      expect(tooLarge).toMatchObject({ status: 413, code: 'http', requestId: expect.any(String) });
      const nowhere = createPlantStoreClient({ baseUrl: `http://127.0.0.1:${await reservePort()}`, token: TOKENS.owner });
      const unreachable = await failure(nowhere.plants.get(1), RequestFailedError);
      expect(unreachable).toMatchObject({ status: 0, code: 'network', requestId: undefined });
      expect(unreachable.cause).toBeDefined();
    });

    it('passes an abort through as the abort reason', async () => {
      const controller = new AbortController();
      controller.abort(new Error('changed my mind'));
      await expect(owner.plants.get(1, { signal: controller.signal })).rejects.toThrow('changed my mind');
    });
  });
});

/** Storage whose `plants.list` fails from the `failFrom`-th call on, as a broken disk would. */
function failingList(storage: Storage, failFrom: number): Storage {
  let calls = 0;
  const plants = storage.plants;
  return {
    ...storage,
    ping: () => storage.ping(),
    close: () => storage.close(),
    plants: {
      create: (...args) => plants.create(...args),
      get: (...args) => plants.get(...args),
      delete: (...args) => plants.delete(...args),
      idAtOffset: (...args) => plants.idAtOffset(...args),
      list: async (...args) => {
        if (++calls >= failFrom) throw new StorageError('disk on fire');
        return plants.list(...args);
      },
    },
  };
}

describe('typed client when storage fails', () => {
  it('503 before the first byte is UnavailableError', async () => {
    const server = await startTestServer('memory', { wrapStorage: (storage) => failingList(storage, 1) });
    try {
      const client = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.owner });
      const unavailable = await failure(collect(client.plants.list()), UnavailableError);
      expect(unavailable).toMatchObject({ status: 503, code: 'storage', message: 'storage unavailable' });
    } finally {
      await server.close();
    }
  });

  it('a list cut off mid-stream is an error, never a shorter list', async () => {
    const server = await startTestServer('memory', { batchSize: 10, wrapStorage: (storage) => failingList(storage, 5) });
    try {
      const client = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.owner });
      for (let id = 0; id < 200; id++) await client.plants.create({ id, name: `p${id}` });
      const seen: Plant[] = [];
      const cut = await failure(
        (async () => {
          for await (const plant of client.plants.list()) seen.push(plant);
        })(),
        RequestFailedError,
      );
      expect(cut).toMatchObject({ status: 200, code: 'network' });
      expect(seen.length).toBeLessThan(200);
    } finally {
      await server.close();
    }
  });
});

describe('a real webhook received and verified with verifyWebhook', () => {
  let receiver: WebhookReceiver;
  let service: TestService;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startService('sqlite', { subscriptions: [{ url: receiver.url('/plants'), secret }] });
  });
  afterAll(async () => {
    await receiver.close();
    await service.close();
  });

  it('verifies the New Plant webhook of a plant created through the client, exact id included', async () => {
    const client = createPlantStoreClient({ baseUrl: service.base, token: TOKENS.owner });
    await client.plants.create({ id: MAX, name: 'Big Fern', tag: 'green' });
    await client.plants.create({ id: MIN, name: 'Small Fern' });
    const received = await receiver.waitFor(2);
    const payloads = await Promise.all(received.map((request) => verifyWebhook(request.body, request.headers, secret)));
    expect(payloads).toEqual(
      expect.arrayContaining([
        { id: MAX, name: 'Big Fern', tag: 'green' },
        { id: MIN, name: 'Small Fern' },
      ]),
    );
    const [first] = received;
    const wrongSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await expect(verifyWebhook(first!.body, first!.headers, wrongSecret)).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(`${first!.body} `, first!.headers, secret)).rejects.toThrow(WebhookVerificationError);
    const headers = new Headers(first!.headers);
    expect(await verifyWebhook(first!.body, headers, secret)).toEqual(payloads[0]);
  });
});
