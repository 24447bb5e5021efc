import { MAX_PORTAL_LINK_TTL_MS } from '@plant-store/core';
import { parseDuration } from '../../config/parse-duration.js';
import { SETTINGS } from '../../config/settings.js';
import { STORAGE_OPTIONS, UsageError, nonEmpty, parseStrict, refuseOtherOptions, storageFlags, type StorageFlags } from '../command-args.js';

export type PortalLinkCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'mint'; readonly tenant: string; readonly readOnly: boolean; readonly expiresInMs?: number; readonly baseUrl: string }
  | { readonly kind: 'revoke'; readonly id: string }
  | { readonly kind: 'list'; readonly tenant?: string };

const OPTIONS = {
  ...STORAGE_OPTIONS,
  tenant: { type: 'string' },
  'read-only': { type: 'boolean' },
  expires: { type: 'string' },
  'base-url': { type: 'string' },
  revoke: { type: 'string' },
  list: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** Parses `plant-store portal-link …` strictly; mistakes are a `UsageError` with one line. */
export function parsePortalLinkArgs(args: readonly string[], env: NodeJS.ProcessEnv): { command: PortalLinkCommand; storage: StorageFlags } {
  const { values } = parseStrict<Values>(args, OPTIONS, false);
  const storage = storageFlags(values);
  if (values.help) return { command: { kind: 'help' }, storage };
  if (values.revoke !== undefined) {
    refuseOtherOptions(values, '--revoke', ['revoke']);
    if (values.revoke === '') throw new UsageError('--revoke needs a link id');
    return { command: { kind: 'revoke', id: values.revoke }, storage };
  }
  if (values.list) {
    refuseOtherOptions(values, '--list', ['list', 'tenant']);
    return { command: { kind: 'list', tenant: nonEmpty(values.tenant, 'tenant') }, storage };
  }
  refuseOtherOptions(values, 'a new link', ['tenant', 'read-only', 'expires', 'base-url']);
  const tenant = nonEmpty(values.tenant, 'tenant');
  if (tenant === undefined) throw new UsageError('a portal link needs --tenant <tenant> (or --revoke <link-id>, --list)');
  return {
    command: {
      kind: 'mint',
      tenant,
      readOnly: values['read-only'] ?? false,
      ...(values.expires !== undefined ? { expiresInMs: expires(values.expires) } : {}),
      baseUrl: baseUrl(values['base-url'], env),
    },
    storage,
  };
}

function expires(value: string): number {
  const ms = parseDuration(value, MAX_PORTAL_LINK_TTL_MS);
  if (ms === undefined || ms < 1) throw new UsageError('--expires must be a duration such as 30m, 1h or 7d (at most 7d)');
  return ms;
}

// Where tenants reach the service, when it is not where `serve` listens.
const PUBLIC_URL_ENV = 'PLANT_STORE_PUBLIC_URL';

/** `--base-url`, else `PLANT_STORE_PUBLIC_URL`, else where `serve` listens when that can be told (not 0.0.0.0, nor without PORT). */
function baseUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const publicUrl = env[PUBLIC_URL_ENV]?.trim() || undefined;
  const source = flag !== undefined ? '--base-url' : publicUrl !== undefined ? PUBLIC_URL_ENV : undefined;
  const text = flag ?? publicUrl ?? listenUrl(env);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} must be an absolute http(s) URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${source} must be an http or https URL`);
  if (url.search !== '' || url.hash !== '') throw new UsageError(`${source} must not have a query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

function listenUrl(env: NodeJS.ProcessEnv): string {
  const host = env[SETTINGS.host.env]?.trim() || SETTINGS.host.default!;
  const port = env[SETTINGS.port.env]?.trim();
  const guessless = (why: string) => new UsageError(`cannot tell where tenants reach the service (${why}): give --base-url or set ${PUBLIC_URL_ENV}`);
  if (!port || port === '0') throw guessless(`${SETTINGS.port.env} is ${port ? '0' : 'not set'}`);
  if (/^(0\.0\.0\.0|\[?(::|0(:0){7})\]?)$/.test(host)) throw guessless(`${SETTINGS.host.env} is ${host}`);
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}
