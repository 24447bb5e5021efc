import type http from 'node:http';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';

/** The proxy an attempt to `receiver` goes through, or `undefined` to connect directly; throws a `ProxySettingError` when the setting is not a proxy URL. */
export type ProxyChoice = (receiver: URL) => URL | undefined;

/** Read from the environment for each attempt: `HTTPS_PROXY`/`HTTP_PROXY` (by the receiver's scheme), `NO_PROXY`. */
const PROXY_FROM_ENV = 'env';

/**
 * What the transport's `proxy` option means: none, `env` (the proxy the usual variables name for the receiver, none for a host in
 * `NO_PROXY`), or a proxy URL for every receiver. A URL given here is checked at once; one from the environment at each attempt.
 */
export function proxyChoice(setting: string | undefined): ProxyChoice {
  if (setting === undefined) return () => undefined;
  if (setting === PROXY_FROM_ENV) {
    return (receiver) => {
      const proxy = getProxyForUrl(receiver.href);
      return proxy === '' ? undefined : proxyUrl(proxy);
    };
  }
  const proxy = proxyUrl(setting);
  return () => proxy;
}

/** A proxy setting that is not a proxy URL; the message never echoes the value: it may hold a password. */
export class ProxySettingError extends TypeError {
  constructor() {
    super('the webhook proxy must be an http:// or https:// URL such as http://proxy.internal:3128');
    this.name = 'ProxySettingError';
  }
}

/** An `http://` or `https://` proxy URL, or a `ProxySettingError`. */
function proxyUrl(value: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw new ProxySettingError();
  return url;
}

/**
 * One CONNECT-tunnelling agent per proxy and kind of request (kept apart like the direct pools: a restricted request's tunnel leads
 * to a checked address). Tunnels are kept alive and reused like direct sockets.
 */
export class ProxyAgents {
  readonly #agents = new Map<string, http.Agent>();

  constructor(private readonly options: http.AgentOptions) {}

  for(proxy: URL, restricted: boolean): http.Agent {
    const key = `${restricted ? 'restricted' : 'trusted'} ${proxy.href}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = new HttpsProxyAgent(proxy, this.options);
      this.#agents.set(key, agent);
    }
    return agent;
  }
}

/** What the proxy answered to CONNECT, as `https-proxy-agent` reports it on the request. */
export interface ProxyConnectAnswer {
  readonly statusCode: number;
  readonly statusText?: string;
}

/** The attempt log's reason for a tunnel the proxy did not open; the proxy's address stays out (tenants read the log). */
export function proxyRefusedReason({ statusCode, statusText }: ProxyConnectAnswer): string {
  return `proxy answered CONNECT with ${statusCode}${statusText ? ` ${statusText}` : ''}`;
}

/** The attempt log's reason for a proxy that could not be reached or dropped the CONNECT; the proxy's address stays out. */
export function proxyFailedReason(error: NodeJS.ErrnoException, abortReason: string | undefined): string {
  return `proxy failed: ${abortReason ?? error.code ?? error.message ?? 'no tunnel'}`;
}
