import type { IncomingMessage, ServerResponse } from 'node:http';

/** A value now (better-sqlite3, memory) or later (pg). */
type Maybe<T> = T | Promise<T>;

/**
 * The storage slice of a lean baseline. Answers are JSON text ready to
 * send (the database builds it itself), so the listener never walks rows.
 */
export interface LeanStore {
  /** Writes the plant and one outbox row per subscription (payload `body`) in one transaction; the stored plant's JSON when the id exists (nothing written). */
  create(tenant: string, id: number, name: string, tag: string | undefined, body: string): Maybe<string | undefined>;
  /** The plant's JSON, or undefined. */
  get(tenant: string, id: bigint): Maybe<string | undefined>;
  /** Up to `limit` plants with `id > after` as a JSON array; `last` is the cursor when more remain. */
  page(tenant: string, after: bigint | undefined, limit: number): Maybe<{ readonly body: string; readonly last: bigint | string | undefined }>;
  delete(tenant: string, id: bigint): Maybe<boolean>;
}

export interface LeanListenerOptions {
  readonly store: LeanStore;
  /** Bearer token → tenant, as given (no digest). */
  readonly tenants: ReadonlyMap<string, string>;
  /** One JSON line per request on stdout. */
  readonly log: boolean;
}

const MAX_BODY = 65_536;
const INTEGER = /^-?\d{1,19}$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function send(res: ServerResponse, status: number, body: string, link?: string): void {
  const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))];
  if (link !== undefined) headers.push('link', link);
  res.writeHead(status, headers);
  res.end(body);
}

function fail(res: ServerResponse, status: number, message: string): void {
  send(res, status, `{"error":${status},"message":${JSON.stringify(message)}}`);
}

/** Calls `use` at once with a synchronous store's answer, so the SQLite and memory baselines pay for no promise. */
function then<T>(res: ServerResponse, value: Maybe<T>, use: (value: T) => void): void {
  if (value instanceof Promise) value.then(use, () => fail(res, 503, 'storage unavailable'));
  else use(value);
}

function int64(text: string): bigint | undefined {
  if (!INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** `{id, name, tag?}` checked by hand; the error message, or the fields. */
function checkPlant(body: unknown): string | { id: number; name: string; tag: string | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'plant must be a JSON object';
  const record = body as Record<string, unknown>;
  for (const key in record) if (key !== 'id' && key !== 'name' && key !== 'tag') return `unknown property '${key}'`;
  const { id, name, tag } = record;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return 'id must be an integer';
  if (typeof name !== 'string' || name.length === 0 || name.length > 256) return 'name must be a string of 1 to 256 characters';
  if (tag !== undefined && (typeof tag !== 'string' || tag.length === 0 || tag.length > 64)) return 'tag must be a string of 1 to 64 characters';
  return { id, name, tag: tag as string | undefined };
}

/**
 * The lean hand-written server: the least work Node and the driver allow
 * for the same answers. No request id, content-type or UTF-8 checks,
 * metrics, tag filters or unlimited listing (`limit` is required).
 */
export function createLeanListener(options: LeanListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, tenants } = options;

  function create(req: IncomingMessage, res: ServerResponse, tenant: string): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return fail(res, 413, 'body too large');
      let body: unknown;
      try {
        body = JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
      } catch {
        return fail(res, 400, 'body is not valid JSON');
      }
      const plant = checkPlant(body);
      if (typeof plant === 'string') return fail(res, 400, plant);
      const json = `{"id":${plant.id},"name":${JSON.stringify(plant.name)}${plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`}}`;
      then(res, store.create(tenant, plant.id, plant.name, plant.tag, json), (existing) => {
        if (existing !== undefined && existing !== json) fail(res, 409, `a plant with id ${plant.id} already exists with a different name or tag`);
        else send(res, 200, json);
      });
    });
  }

  function list(res: ServerResponse, tenant: string, query: string): void {
    const params = new URLSearchParams(query);
    const limit = Number(params.get('limit') ?? NaN);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) return fail(res, 400, 'limit must be an integer from 1 to 500 (lean baseline)');
    const afterText = params.get('after');
    const after = afterText === null ? undefined : int64(afterText);
    if (afterText !== null && after === undefined) return fail(res, 400, 'after must be an int64');
    then(res, store.page(tenant, after, limit), ({ body, last }) =>
      send(res, 200, body, last === undefined ? undefined : `</plants?limit=${limit}&after=${last}>; rel="next"`),
    );
  }

  function byId(req: IncomingMessage, res: ServerResponse, tenant: string, idText: string): void {
    const id = int64(idText);
    if (id === undefined) return fail(res, 400, 'id must be an int64');
    if (req.method === 'GET') {
      return then(res, store.get(tenant, id), (body) => (body === undefined ? fail(res, 404, `plant ${id} not found`) : send(res, 200, body)));
    }
    if (req.method !== 'DELETE') return fail(res, 405, 'method not allowed');
    then(res, store.delete(tenant, id), (deleted) => {
      if (!deleted) return fail(res, 404, `plant ${id} not found`);
      res.writeHead(204);
      res.end();
    });
  }

  function route(req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
    const header = req.headers.authorization;
    const tenant = header?.startsWith('Bearer ') ? tenants.get(header.slice(7)) : undefined;
    if (tenant === undefined) return fail(res, 401, 'invalid bearer token');
    if (path === '/plants') {
      if (req.method === 'POST') return create(req, res, tenant);
      if (req.method === 'GET') return list(res, tenant, query);
      return fail(res, 405, 'method not allowed');
    }
    if (path.startsWith('/plants/')) return byId(req, res, tenant, path.slice(8));
    fail(res, 404, 'not found');
  }

  return (req, res) => {
    const started = options.log ? performance.now() : 0;
    const url = req.url ?? '/';
    const at = url.indexOf('?');
    const path = at === -1 ? url : url.slice(0, at);
    if (path === '/healthz' || path === '/readyz') send(res, 200, '{"status":"ok"}');
    else route(req, res, path, at === -1 ? '' : url.slice(at + 1));
    if (!options.log) return;
    res.once('finish', () => {
      const line = {
        time: new Date().toISOString(),
        level: 'info',
        msg: 'request',
        method: req.method,
        path,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    });
  };
}
