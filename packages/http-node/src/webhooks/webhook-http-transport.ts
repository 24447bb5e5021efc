import http from 'node:http';
import https from 'node:https';
import type { WebhookRequest, WebhookResponse, WebhookTransport } from '@plant-store/core';

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

const USER_AGENT = /^user-agent$/i;

/**
 * The reference `WebhookTransport`: one POST per attempt with node:http or
 * node:https over keep-alive agents. The timeout covers connecting, sending
 * and the response headers; a response body is drained up to
 * `maxResponseBytes` within the same deadline. Redirects are never followed
 * (node:http does not). Resolves with the status, or with an error text;
 * never rejects.
 */
export function webhookHttpTransport(options: WebhookHttpTransportOptions = {}): WebhookTransport {
  const maxResponseBytes = options.maxResponseBytes ?? 65_536;
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 64,
    timeout: options.idleSocketTimeoutMs ?? 4_000,
    scheduling: 'lifo' as const,
  };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  return {
    send(request: WebhookRequest): Promise<WebhookResponse> {
      return new Promise<WebhookResponse>((resolve) => {
        let url: URL;
        try {
          url = new URL(request.url);
        } catch {
          resolve({ error: 'invalid url' });
          return;
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          resolve({ error: `unsupported protocol ${url.protocol}` });
          return;
        }
        const client = url.protocol === 'https:' ? https : http;
        const agent = agents[url.protocol];
        const body = Buffer.from(request.body, 'utf8');
        const headers: Record<string, string> = { ...request.headers, 'content-length': String(body.length) };
        if (options.userAgent !== undefined && !Object.keys(headers).some((name) => USER_AGENT.test(name))) {
          headers['user-agent'] = options.userAgent;
        }

        const controller = new AbortController();
        const deadline = setTimeout(() => controller.abort(), request.timeoutMs);
        let settled = false;
        const settle = (response: WebhookResponse) => {
          if (settled) return;
          settled = true;
          resolve(response);
        };

        const post = (mayRetry: boolean) => {
          const req = client.request(url, { method: 'POST', headers, agent, signal: controller.signal });
          req.on('response', (res) => {
            const retryAfter = res.headers['retry-after'];
            settle({ statusCode: res.statusCode ?? 0, ...(retryAfter !== undefined ? { retryAfter } : {}) });
            // Drain (so the socket can be reused) but never buffer: the body means nothing to us.
            let received = 0;
            res.on('data', (chunk: Buffer) => {
              received += chunk.length;
              if (received > maxResponseBytes) res.destroy();
            });
            res.on('error', () => {}); // aborted or cut off on purpose; the status is already known
            res.on('close', () => clearTimeout(deadline));
          });
          req.on('error', (error: NodeJS.ErrnoException) => {
            if (settled) return;
            // A kept-alive socket the receiver closed just as we reused it: the
            // request never reached it, so try once more on a fresh socket (the Node docs' advice).
            if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET' && !controller.signal.aborted) {
              post(false);
              return;
            }
            clearTimeout(deadline);
            settle({ error: controller.signal.aborted ? `timeout after ${request.timeoutMs} ms` : describe(error) });
          });
          req.end(body);
        };
        post(true);
      });
    },
  };
}

function describe(error: NodeJS.ErrnoException): string {
  const message = error.message || error.code || 'request failed';
  return error.code && !message.includes(error.code) ? `${message} (${error.code})` : message;
}
