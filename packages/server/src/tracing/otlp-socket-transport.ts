// Sends OTLP/HTTP export requests to a plain-`http:` endpoint on a socket of their own, without Node's HTTP client.
import { connect, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';

/** What the transport takes of the SDK's OTLP/HTTP settings (the `OTEL_EXPORTER_OTLP_*` variables, resolved). */
export interface SocketTransportSettings {
  readonly url: string;
  readonly headers: () => Promise<Record<string, string>>;
  readonly compression: 'gzip' | 'none';
}

const gzipAsync = promisify(gzip);
// As the SDK's transport: a collector's answer is a small protobuf message; anything past this is not one.
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const RETRYABLE_NETWORK_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH']);
// RFC 9110's token and field-value characters: a header the variables give that is not one is refused, never sent.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * An OTLP/HTTP transport for `http:` endpoints that writes each export
 * request on a new TCP connection (`Connection: close`) and reads the
 * answer's status line and headers by hand.
 *
 * Why not Node's HTTP client, as the SDK's transport uses: a service whose
 * process runs that client serves its own HTTP requests measurably slower
 * once it traces them (about 7 % more CPU per request in the benchmark;
 * undici's `fetch` did the same), and sending the same bytes on a plain
 * socket did not. An export is a few requests a second at most, so a
 * connection each costs little and spares the keep-alive bookkeeping.
 * The answer is read until the collector closes the connection, as
 * `Connection: close` asks; its body is kept only when its length is
 * given (it carries the collector's partial-success report).
 */
export function socketTransport(settings: SocketTransportSettings): IExporterTransport {
  const url = new URL(settings.url);
  if (url.protocol !== 'http:') throw new RangeError(`the socket transport sends to http: endpoints only, got ${url.protocol}`);
  const port = url.port === '' ? 80 : Number(url.port);
  // `[::1]` in a URL, `::1` to connect to.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    async send(data, timeoutMillis) {
      const headers = await settings.headers();
      const body = settings.compression === 'gzip' ? await gzipAsync(data) : data;
      const head = requestHead(url, headers, body.byteLength, settings.compression === 'gzip');
      if (head instanceof Error) return { status: 'failure', error: head };
      return exchange(port, host, head, body, timeoutMillis);
    },
    shutdown() {},
  };
}

/** The request's head, or the error of a header that cannot be sent. */
function requestHead(url: URL, headers: Record<string, string>, length: number, gzipped: boolean): string | Error {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    // Framing is this transport's to write.
    if (lower === 'host' || lower === 'content-length' || lower === 'connection' || lower === 'transfer-encoding' || lower === 'content-encoding') continue;
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) return new Error(`the OTLP export header ${JSON.stringify(name)} is not a valid HTTP header`);
    head += `${name}: ${value}\r\n`;
  }
  if (gzipped) head += 'Content-Encoding: gzip\r\n';
  return `${head}Content-Length: ${length}\r\nConnection: close\r\n\r\n`;
}

/** Writes one request on a new connection and reads its answer until the collector closes it. */
function exchange(port: number, host: string, head: string, body: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (response: ExportResponse, socket: Socket) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(response);
    };
    const socket = connect({ port, host });
    // A plain timer, not the socket's: `socket.setTimeout` rearms on every read and write.
    const timer = setTimeout(() => settle({ status: 'retryable', error: new Error('OTLP export request timed out') }, socket), timeoutMillis);
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) return settle({ status: 'failure', error: new Error(`OTLP export response exceeded ${MAX_RESPONSE_BYTES} bytes`) }, socket);
      chunks.push(chunk);
      // An answer whose length it gives is read once complete, not when (or if) the collector closes.
      const answer = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      if (hasWholeBody(answer)) settle(responseOf(answer), socket);
    });
    socket.on('end', () => settle(responseOf(Buffer.concat(chunks)), socket));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      settle({ status: RETRYABLE_NETWORK_ERRORS.has(error.code ?? '') ? 'retryable' : 'failure', error }, socket);
    });
    // Not ended after the body: a server may take a half-closed connection for a client gone.
    socket.write(head, 'latin1');
    socket.write(body);
  });
}

/** True when `answer` holds a whole head and as many body bytes as its `Content-Length` says. */
function hasWholeBody(answer: Buffer): boolean {
  const headEnd = answer.indexOf('\r\n\r\n');
  if (headEnd === -1) return false;
  const length = /\r\ncontent-length:[ \t]*(\d+)[ \t]*\r\n/i.exec(answer.toString('latin1', 0, headEnd + 2));
  return length !== null && answer.length - headEnd - 4 >= Number(length[1]);
}

/** What an answer (read whole, or to where the collector closed the connection) means for the export. */
export function responseOf(answer: Buffer): ExportResponse {
  const headEnd = answer.indexOf('\r\n\r\n');
  if (headEnd === -1) return { status: 'retryable', error: new Error('the OTLP endpoint closed the connection without a complete answer') };
  const [statusLine = '', ...fields] = answer.toString('latin1', 0, headEnd).split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (match === null) return { status: 'failure', error: new Error(`the OTLP endpoint did not answer in HTTP/1.1: ${JSON.stringify(statusLine.slice(0, 80))}`) };
  const status = Number(match[1]);
  const header = (name: string) => fields.find((field) => field.slice(0, field.indexOf(':')).trim().toLowerCase() === name)?.slice(name.length + 1).trim();
  const body = answer.subarray(headEnd + 4);
  if (status >= 200 && status <= 299) {
    const length = header('content-length');
    // Chunked or unframed: the partial-success report is not read (the spans were accepted either way).
    return length !== undefined && /^\d+$/.test(length) && Number(length) <= body.length ? { status: 'success', data: body.subarray(0, Number(length)) } : { status: 'success' };
  }
  if (RETRYABLE_STATUSES.has(status)) return { status: 'retryable', retryInMillis: retryAfterMillis(header('retry-after')) };
  return { status: 'failure', error: new Error(`the OTLP endpoint answered ${status}${match[2] ? ` ${match[2]}` : ''}: ${body.toString('utf8', 0, 200)}`) };
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now; `undefined` when absent or unreadable. */
function retryAfterMillis(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(at - Date.now(), 0);
}
