import http from 'node:http';
import https from 'node:https';
import { ATTEMPT_RESPONSE_MAX_BYTES, type WebhookRequest, type WebhookSendOutcome, type WebhookTransport } from '@plant-store/core/adapter';
import { DESTINATION_NOT_ALLOWED, guardedLookup, refusesLiteral } from './guarded-lookup.js';
import { httpStatusOutcome } from './http-status-outcome.js';
import { ResponseSnippet } from './response-snippet.js';

export interface WebhookHttpTransportOptions {
  /** Most sockets open to one receiver (host and port) at once; more requests queue. @default 64 */
  readonly maxSockets?: number;
  /** Bytes of a response body read (and dropped) before the connection is closed instead. @default 65536 */
  readonly maxResponseBytes?: number;
  /** Idle keep-alive sockets are closed after this many ms; below Node's 5 s server keep-alive, so a socket is not reused just as the receiver closes it. @default 4000 */
  readonly idleSocketTimeoutMs?: number;
  /** `user-agent` sent when a request has none (the dispatcher always sets one). @default none */
  readonly userAgent?: string;
}

const DESTINATION_NOT_ALLOWED_REASON = 'destination not allowed';

const MAX_TIMER_MS = 2 ** 31 - 1;

const USER_AGENT = /^user-agent$/i;

type Agents = Readonly<Record<'http:' | 'https:', http.Agent>>;

interface SendContext {
  readonly agents: Agents;
  /** Pools of their own for `restrictDestination` requests: a pooled socket skips the guarded lookup. */
  readonly restrictedAgents: Agents;
  readonly maxResponseBytes: number;
  readonly userAgent: string | undefined;
}

/**
 * The reference `WebhookTransport`: one POST per attempt over keep-alive agents, no redirects, the first 1 KiB of the
 * answer kept as `response`; the timeout covers up to that KiB, the rest is drained up to `maxResponseBytes`. Never rejects.
 */
export function webhookHttpTransport(options: WebhookHttpTransportOptions = {}): WebhookTransport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, timeout: options.idleSocketTimeoutMs ?? 4_000, scheduling: 'lifo' as const };
  // Private destinations are the store's setting (it leaves requests unmarked), so the transport has none that could disagree.
  const restrictedOptions = { ...agentOptions, lookup: guardedLookup() };
  const context: SendContext = {
    agents: { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) },
    restrictedAgents: { 'http:': new http.Agent(restrictedOptions), 'https:': new https.Agent(restrictedOptions) },
    maxResponseBytes: options.maxResponseBytes ?? 65_536,
    userAgent: options.userAgent,
  };
  return { send: (request) => send(request, context) };
}

async function send(request: WebhookRequest, context: SendContext): Promise<WebhookSendOutcome> {
  const url = URL.canParse(request.url) ? new URL(request.url) : undefined;
  if (url === undefined) return { kind: 'failed', reason: 'invalid url' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'failed', reason: `unsupported protocol ${url.protocol}` };
  if (request.signal.aborted) return { kind: 'retry', reason: 'aborted before sending' };
  if (request.restrictDestination && refusesLiteral(url)) return { kind: 'failed', reason: DESTINATION_NOT_ALLOWED_REASON };
  return new Promise((resolve) => new Attempt(url, request, context, resolve).start());
}

/** One POST in flight: its deadline, its abort, and the one outcome it settles with. */
class Attempt {
  readonly #body: Buffer;
  readonly #headers: Record<string, string>;
  readonly #controller = new AbortController();
  #abortReason: string | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #settled = false;
  #responded = false;
  readonly #onShutdown = () => this.#abort('aborted: the dispatcher stopped');

  constructor(
    private readonly url: URL,
    private readonly request: WebhookRequest,
    private readonly context: SendContext,
    private readonly resolve: (outcome: WebhookSendOutcome) => void,
  ) {
    this.#body = Buffer.from(request.body, 'utf8');
    this.#headers = { ...request.headers, 'content-length': String(this.#body.length) };
    if (context.userAgent !== undefined && !Object.keys(this.#headers).some((name) => USER_AGENT.test(name))) {
      this.#headers['user-agent'] = context.userAgent;
    }
  }

  start(): void {
    // Node timers fire at once beyond 2^31-1 ms: clamp.
    this.#deadline = setTimeout(() => this.#abort(`timeout after ${this.request.timeoutMs} ms`), Math.min(this.request.timeoutMs, MAX_TIMER_MS));
    this.request.signal.addEventListener('abort', this.#onShutdown, { once: true });
    this.#post(true);
  }

  #post(mayRetry: boolean): void {
    const client = this.url.protocol === 'https:' ? https : http;
    const agents = this.request.restrictDestination ? this.context.restrictedAgents : this.context.agents;
    const agent = agents[this.url.protocol as 'http:' | 'https:'];
    const req = client.request(this.url, { method: 'POST', headers: this.#headers, agent, signal: this.#controller.signal });
    req.on('response', (res) => this.#onResponse(res));
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Once answered, the status decides (an abort while reading the body only cuts the snippet short).
      if (this.#settled || this.#responded) return;
      // A kept-alive socket the receiver closed just as we reused it: the request never reached it, so retry once (as the Node docs advise).
      if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET' && this.#abortReason === undefined) {
        this.#post(false);
        return;
      }
      this.#settle({ kind: 'retry', reason: this.#abortReason ?? describe(error) });
    });
    req.end(this.#body);
  }

  #onResponse(res: http.IncomingMessage): void {
    this.#responded = true;
    const outcome = httpStatusOutcome(res.statusCode ?? 0, res.headers['retry-after'], Date.now());
    // The outcome waits for the start of the answer (for the attempt log); a stalled body is cut by the deadline.
    const snippet = new ResponseSnippet(ATTEMPT_RESPONSE_MAX_BYTES);
    const settle = () => {
      // Called again by each later chunk, the end and the close: the snippet is read once.
      if (this.#settled) return;
      const response = snippet.text();
      this.#settle(response === undefined ? outcome : { ...outcome, response }, false);
    };
    // Drain (so the socket can be reused) but never buffer beyond the snippet.
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      if (!this.#settled) {
        snippet.add(chunk);
        if (snippet.full) settle();
      }
      received += chunk.length;
      if (received > this.context.maxResponseBytes) res.destroy();
    });
    res.on('end', settle);
    res.on('error', () => {}); // aborted or cut off on purpose; the status is already known
    res.on('close', () => {
      settle();
      this.#cleanUp();
    });
  }

  #abort(reason: string): void {
    this.#abortReason ??= reason;
    this.#controller.abort();
  }

  #settle(outcome: WebhookSendOutcome, done = true): void {
    if (done) this.#cleanUp();
    if (this.#settled) return;
    this.#settled = true;
    this.resolve(outcome);
  }

  #cleanUp(): void {
    clearTimeout(this.#deadline);
    this.request.signal.removeEventListener('abort', this.#onShutdown);
  }
}

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === DESTINATION_NOT_ALLOWED) return DESTINATION_NOT_ALLOWED_REASON;
  const message = error.message || error.code || 'request failed';
  return error.code && !message.includes(error.code) ? `${message} (${error.code})` : message;
}
