import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ATTEMPT_RESPONSE_MAX_BYTES, literalHostAddress, type WebhookRequest, type WebhookSendOutcome, type WebhookTransport } from '@plant-store/core/adapter';
import { DESTINATION_NOT_ALLOWED, type GuardedLookupOptions, guardedLookup, refusesLiteral, resolveGuarded } from './guarded-lookup.js';
import { httpStatusOutcome } from './http-status-outcome.js';
import { ResponseSnippet } from './response-snippet.js';
import {
  type ProxyChoice,
  type ProxyConnectAnswer,
  ProxyAgents,
  ProxySettingError,
  proxyChoice,
  proxyFailedReason,
  proxyRefusedReason,
} from './webhook-proxy.js';

export interface WebhookHttpTransportOptions {
  /** Most sockets open to one receiver (host and port) at once; more requests queue. @default 64 */
  readonly maxSockets?: number;
  /** Bytes of a response body read (and dropped) before the connection is closed instead. @default 65536 */
  readonly maxResponseBytes?: number;
  /** Idle keep-alive sockets are closed after this many ms; below Node's 5 s server keep-alive, so a socket is not reused just as the receiver closes it. @default 4000 */
  readonly idleSocketTimeoutMs?: number;
  /** `user-agent` sent when a request has none (the dispatcher always sets one). @default none */
  readonly userAgent?: string;
  /**
   * Send attempts through an HTTP proxy: its URL (`http://[user:password@]host:port`; `https://` for TLS to the proxy), or `env` for
   * the one `HTTPS_PROXY`/`HTTP_PROXY` name for the receiver's scheme, none for a host in `NO_PROXY`. Every attempt, `http://`
   * receivers too, goes through a CONNECT tunnel; a restricted request's name is resolved and checked here first, and the proxy is
   * asked to connect to that address (Host and TLS keep the name). Throws a `TypeError` when the URL is not a proxy URL.
   * @default none (attempts connect directly)
   */
  readonly proxy?: string;
}

const DESTINATION_NOT_ALLOWED_REASON = 'destination not allowed';

const MAX_TIMER_MS = 2 ** 31 - 1;

const USER_AGENT = /^user-agent$/i;

type Agents = Readonly<Record<'http:' | 'https:', http.Agent>>;

interface SendContext {
  readonly agents: Agents;
  /** Pools of their own for `restrictDestination` requests: a pooled socket skips the guarded lookup. */
  readonly restrictedAgents: Agents;
  readonly proxyFor: ProxyChoice;
  readonly proxyAgents: ProxyAgents;
  /** The restricted pools' lookup, also resolving a restricted request's name for its proxy. */
  readonly guardedLookup: LookupFunction;
  readonly maxResponseBytes: number;
  readonly userAgent: string | undefined;
}

/**
 * The reference `WebhookTransport`: one POST per attempt over keep-alive agents, no redirects, the first 1 KiB of the
 * answer kept as `response`; the timeout covers up to that KiB, the rest is drained up to `maxResponseBytes`. Never rejects.
 */
export function webhookHttpTransport(options: WebhookHttpTransportOptions = {}): WebhookTransport {
  return guardedWebhookHttpTransport(options, {});
}

/** `webhookHttpTransport` with the guard's resolver and rule given: tests stand a loopback receiver in for a public one. */
export function guardedWebhookHttpTransport(options: WebhookHttpTransportOptions, guard: GuardedLookupOptions): WebhookTransport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, timeout: options.idleSocketTimeoutMs ?? 4_000, scheduling: 'lifo' as const };
  // Private destinations are the store's setting (it leaves requests unmarked), so the transport has none that could disagree.
  const lookup = guardedLookup(guard);
  const restrictedOptions = { ...agentOptions, lookup };
  const context: SendContext = {
    agents: { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) },
    restrictedAgents: { 'http:': new http.Agent(restrictedOptions), 'https:': new https.Agent(restrictedOptions) },
    proxyFor: proxyChoice(options.proxy),
    // The guarded lookup stays off these: it would judge the proxy's own (often private) address.
    proxyAgents: new ProxyAgents(agentOptions),
    guardedLookup: lookup,
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
  let route: Route;
  try {
    route = await routeTo(url, request, context);
  } catch (error) {
    return unroutable(error as NodeJS.ErrnoException);
  }
  return new Promise((resolve) => new Attempt(url, request, context, route, resolve).start());
}

/** How an attempt reaches its receiver: the pool to send through, and for a proxied restricted request the checked address the proxy is to connect to. */
interface Route {
  readonly agent: http.Agent;
  readonly proxied: boolean;
  readonly connectTo?: string;
}

async function routeTo(url: URL, request: WebhookRequest, context: SendContext): Promise<Route> {
  const restricted = request.restrictDestination === true;
  const proxy = context.proxyFor(url);
  if (proxy === undefined) return { agent: (restricted ? context.restrictedAgents : context.agents)[url.protocol as 'http:' | 'https:'], proxied: false };
  const agent = context.proxyAgents.for(proxy, restricted);
  // A proxy resolves names itself, unchecked: resolve and check here, and have it connect to the checked address.
  if (!restricted || literalHostAddress(url) !== undefined) return { agent, proxied: true };
  return { agent, proxied: true, connectTo: await resolveGuarded(context.guardedLookup, url.hostname) };
}

/** No route: a refused or unresolvable name (as on a direct connection), or a proxy setting from the environment that is not a proxy URL. */
function unroutable(error: NodeJS.ErrnoException): WebhookSendOutcome {
  if (error instanceof ProxySettingError) return { kind: 'retry', reason: `proxy failed: ${error.message}`, egressFailed: true };
  return { kind: 'retry', reason: describe(error) };
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
  /** Set once the proxy answered CONNECT on a new tunnel; until then, a failure is the proxy's. */
  #proxyAnswer: ProxyConnectAnswer | undefined;

  constructor(
    private readonly url: URL,
    private readonly request: WebhookRequest,
    private readonly context: SendContext,
    private readonly route: Route,
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
    const { agent, connectTo } = this.route;
    const options: https.RequestOptions = { method: 'POST', headers: this.#headers, agent, signal: this.#controller.signal };
    // The checked address for the tunnel; the receiver's name for Host, SNI and the certificate.
    if (connectTo !== undefined)
      Object.assign(options, { hostname: connectTo, servername: this.url.hostname, headers: { ...this.#headers, host: this.url.host } });
    const req = client.request(this.url, options);
    this.#proxyAnswer = undefined;
    req.on('proxyConnect', (answer: ProxyConnectAnswer) => (this.#proxyAnswer = answer));
    req.on('response', (res) => this.#onResponse(res));
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Once answered, the status decides (an abort while reading the body only cuts the snippet short).
      if (this.#settled || this.#responded) return;
      // No tunnel yet (a reused one was opened before): the proxy could not be reached or gave up, whatever the receiver is like.
      if (this.route.proxied && !req.reusedSocket && this.#proxyAnswer === undefined) {
        this.#settle({ kind: 'retry', reason: proxyFailedReason(error, this.#abortReason), egressFailed: true });
        return;
      }
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
    // The proxy's own answer to CONNECT, replayed as the response: it never reached the receiver.
    if (this.#proxyAnswer !== undefined && this.#proxyAnswer.statusCode !== 200) {
      res.resume();
      this.#settle({ kind: 'retry', reason: proxyRefusedReason(this.#proxyAnswer), egressFailed: true });
      return;
    }
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
