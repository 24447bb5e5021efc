import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseInt64, parsePlantJson, plantJson } from './raw-plant-json.js';
import type { MaybePromise, RawDelivery, RawPlant, RawStore } from './raw-store.js';

export interface RawListenerOptions {
  readonly store: RawStore;
  /** SHA-256 hex digest of each token → its tenant (every token has both scopes, as with the service's `--tokens`). */
  readonly tenantsByDigest: ReadonlyMap<string, string>;
  /** Subscription URLs matching every tenant: one outbox row each per created plant. */
  readonly webhookUrls: readonly string[];
  readonly maxBody: number;
  /** Write one JSON line per request to stdout, like the service. */
  readonly log: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const AUTH = /^bearer[ \t]+(\S+)[ \t]*$/i;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json(?:\s*;|\s*$)/i;
const decoder = new TextDecoder('utf-8', { fatal: true });
const DEFAULT_BATCH = 500;
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

// The response carries its request id in a property, so the helpers below
// can put it in the one flat header array given to writeHead (node:http's
// cheapest way to send headers).
type Res = ServerResponse & { requestId: string };

/**
 * Continues with a store result: at once when it is a value (SQLite and
 * memory, no promise and no extra tick, exactly as before), after it
 * settles when it is a promise (PostgreSQL). A failure, thrown or
 * rejected, goes to `failed`.
 */
function settle<T>(run: () => MaybePromise<T>, next: (value: T) => void, failed: (error: unknown) => void): void {
  let value: MaybePromise<T>;
  try {
    value = run();
  } catch (error) {
    failed(error);
    return;
  }
  if (value instanceof Promise) value.then(next, failed);
  else next(value);
}

function send(res: Res, status: number, body: string, extra?: readonly string[]): void {
  const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body)), 'x-request-id', res.requestId];
  if (extra) headers.push(...extra);
  res.writeHead(status, headers);
  res.end(body);
}

function fail(res: Res, status: number, message: string, extra?: readonly string[]): void {
  send(res, status, `{"error":${status},"message":${JSON.stringify(message)}}`, extra);
}

/**
 * The raw `node:http` layer both baselines share: the same essential work
 * per request as the service (SHA-256 token lookup, body limit, content type
 * and UTF-8 checks, JSON parse and id/name/tag validation, tenant-scoped
 * storage, JSON response with exact ids, Link header, x-request-id, one JSON
 * log line), written as directly as Node allows.
 */
export function createRawListener(options: RawListenerOptions): Handler {
  const { store, tenantsByDigest, webhookUrls, maxBody } = options;

  function tenantOf(req: IncomingMessage, res: Res): string | undefined {
    const header = req.headers.authorization;
    const match = header === undefined ? null : AUTH.exec(header);
    if (!match) {
      fail(res, 401, 'missing bearer token', ['www-authenticate', 'Bearer realm="plant-store"']);
      return undefined;
    }
    const tenant = tenantsByDigest.get(createHash('sha256').update(match[1]!, 'utf8').digest('hex'));
    if (tenant === undefined) {
      fail(res, 401, 'invalid token', ['www-authenticate', 'Bearer realm="plant-store", error="invalid_token"']);
    }
    return tenant;
  }

  function create(req: IncomingMessage, res: Res, tenant: string): void {
    if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
      req.resume();
      fail(res, 415, 'content-type must be application/json');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBody) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) return fail(res, 413, `request body is larger than ${maxBody} bytes`);
      let text: string;
      try {
        text = decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      } catch {
        return fail(res, 400, 'request body is not valid UTF-8');
      }
      const parsed = parsePlantJson(text);
      if ('error' in parsed) return fail(res, 400, parsed.error);
      const plant = parsed.plant;
      let deliveries: RawDelivery[] = [];
      if (webhookUrls.length > 0) {
        const payload = plantJson(plant);
        const createdAt = Date.now();
        deliveries = webhookUrls.map((endpoint) => ({
          id: `msg_${randomUUID().replaceAll('-', '')}`,
          tenant,
          endpoint,
          eventType: 'plant.created',
          payload,
          createdAt,
        }));
      }
      settle(
        () => store.create(tenant, plant, deliveries),
        (existing) => {
          if (existing && (existing.name !== plant.name || existing.tag !== plant.tag)) {
            return fail(res, 409, `a plant with id ${plant.id} already exists with a different name or tag`);
          }
          send(res, 200, plantJson(existing ?? plant));
        },
        () => fail(res, 503, 'storage unavailable'),
      );
    });
  }

  function list(res: Res, tenant: string, query: string): void {
    const params = new URLSearchParams(query);
    const limitText = params.get('limit');
    const afterText = params.get('after');
    let limit: number | undefined;
    if (limitText !== null) {
      limit = /^\d{1,10}$/.test(limitText) ? Number(limitText) : NaN;
      if (!(limit <= 2147483647)) return fail(res, 400, 'limit must be an integer between 0 and 2147483647');
    }
    let after: bigint | undefined;
    if (afterText !== null) {
      after = parseInt64(afterText);
      if (after === undefined) return fail(res, 400, 'after must be an integer in the int64 range');
    }
    const tagList = params.getAll('tag');
    const tags = tagList.length > 0 ? tagList : undefined;
    if (limit === undefined) return stream(res, tenant, after, tags);
    const pageSize = limit;
    settle(
      () => (pageSize === 0 ? [] : store.list(tenant, after, tags, pageSize + 1)),
      (plants) => page(res, plants, pageSize, tags),
      () => fail(res, 503, 'storage unavailable'),
    );
  }

  function page(res: Res, plants: RawPlant[], limit: number, tags: readonly string[] | undefined): void {
    let link: string[] | undefined;
    if (plants.length > limit) {
      plants.length = limit;
      const tagQuery = tags ? tags.map((tag) => `&tag=${encodeURIComponent(tag)}`).join('') : '';
      link = ['link', `</plants?limit=${limit}&after=${plants[limit - 1]!.id}${tagQuery}>; rel="next"`];
    }
    let body = '[';
    for (let index = 0; index < plants.length; index++) body += (index === 0 ? '' : ',') + plantJson(plants[index]!);
    send(res, 200, `${body}]`, link);
  }

  // Unlimited list: one batch per event-loop turn (other requests get theirs
  // in between), waiting for 'drain' under backpressure; never the whole list in memory.
  function stream(res: Res, tenant: string, after: bigint | undefined, tags: readonly string[] | undefined): void {
    res.writeHead(200, ['content-type', 'application/json', 'x-request-id', res.requestId]);
    let first = true;
    let cursor = after;
    const pump = (): void => {
      if (res.destroyed) return;
      settle(() => store.list(tenant, cursor, tags, DEFAULT_BATCH), write, (error) => res.destroy(error as Error));
    };
    const write = (batch: RawPlant[]): void => {
      let chunk = first ? '[' : '';
      for (const plant of batch) {
        chunk += (first ? '' : ',') + plantJson(plant);
        first = false;
      }
      if (batch.length < DEFAULT_BATCH) {
        res.end(`${chunk}]`);
        return;
      }
      cursor = batch[batch.length - 1]!.id;
      if (res.write(chunk)) setImmediate(pump);
      else res.once('drain', () => setImmediate(pump));
    };
    pump();
  }

  function byId(req: IncomingMessage, res: Res, idText: string): void {
    const method = req.method;
    if (method !== 'GET' && method !== 'DELETE') return fail(res, 405, 'method not allowed', ['allow', 'GET, DELETE']);
    const tenant = tenantOf(req, res);
    if (tenant === undefined) return;
    const id = parseInt64(idText);
    if (id === undefined) return fail(res, 400, 'id must be an integer in the int64 range');
    const unavailable = () => fail(res, 503, 'storage unavailable');
    if (method === 'GET') {
      return settle(
        () => store.get(tenant, id),
        (plant) => (plant ? send(res, 200, plantJson(plant)) : fail(res, 404, `plant ${id} not found`)),
        unavailable,
      );
    }
    settle(
      () => store.delete(tenant, id),
      (deleted) => {
        if (!deleted) return fail(res, 404, `plant ${id} not found`);
        res.writeHead(204, ['x-request-id', res.requestId]);
        res.end();
      },
      unavailable,
    );
  }

  return (req, response) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    const res = response as Res;
    res.requestId = requestId;
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    if (options.log) {
      res.once('finish', () => {
        process.stdout.write(
          `${JSON.stringify({
            time: new Date().toISOString(),
            level: 'info',
            msg: 'request',
            method: req.method,
            path,
            status: res.statusCode,
            durationMs: Math.round((performance.now() - started) * 1000) / 1000,
            requestId,
          })}\n`,
        );
      });
    }
    if (path === '/plants') {
      if (req.method !== 'GET' && req.method !== 'POST') return fail(res, 405, 'method not allowed', ['allow', 'GET, POST']);
      const tenant = tenantOf(req, res);
      if (tenant === undefined) return;
      if (req.method === 'POST') return create(req, res, tenant);
      return list(res, tenant, queryAt < 0 ? '' : url.slice(queryAt + 1));
    }
    if (path.startsWith('/plants/')) return byId(req, res, path.slice(8));
    if (path === '/healthz' || path === '/readyz') return send(res, 200, '{"status":"ok"}');
    fail(res, 404, 'not found');
  };
}
