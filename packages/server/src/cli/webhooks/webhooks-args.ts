import type { DeliveryStatus, ParkedChoice } from '@plant-store/core';
import { DELIVERY_STATUSES } from '@plant-store/core/adapter';
import { parseDuration } from '../../config/parse-duration.js';
import { STORAGE_OPTIONS, UsageError, nonEmpty, parseStrict, refuseOtherOptions, storageFlags, type StorageFlags } from '../command-args.js';

export type WebhooksCommand =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'list';
      readonly status?: DeliveryStatus;
      readonly limit?: number;
      readonly endpoint?: string;
      readonly tenant?: string;
      readonly json: boolean;
    }
  | { readonly kind: 'get'; readonly id: string; readonly json: boolean }
  | { readonly kind: 'retry' | 'resend'; readonly id: string }
  | { readonly kind: 'recover'; readonly endpoint: string; readonly since: number }
  /** `olderThan` in ms; absent: the configured retention. */
  | { readonly kind: 'prune'; readonly olderThan?: number }
  | { readonly kind: 'endpoints list'; readonly limit?: number; readonly after?: string; readonly json: boolean }
  | { readonly kind: 'endpoints disable'; readonly id: string; readonly reason?: string }
  /** `parked`: what enabling a disabled endpoint does with the messages kept for it (replay all unless a flag says otherwise). */
  | { readonly kind: 'endpoints enable'; readonly id: string; readonly parked: ParkedChoice }
  | { readonly kind: 'check'; readonly repair: boolean; readonly limit?: number; readonly json: boolean };

/** A command ready to run: `prune` knows its age limit (from `--older-than` or the configured retention). */
export type WebhooksOperation = Exclude<WebhooksCommand, { kind: 'help' | 'prune' }> | { readonly kind: 'prune'; readonly olderThan: number };

const OPTIONS = {
  ...STORAGE_OPTIONS,
  status: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  endpoint: { type: 'string' },
  tenant: { type: 'string' },
  since: { type: 'string' },
  reason: { type: 'string' },
  'older-than': { type: 'string' },
  json: { type: 'boolean' },
  repair: { type: 'boolean' },
  discard: { type: 'boolean' },
  'replay-since': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** Which command-specific options each command takes (storage flags go with all). */
const ALLOWED: Record<Exclude<WebhooksCommand['kind'], 'help'>, readonly (keyof Values)[]> = {
  list: ['status', 'limit', 'endpoint', 'tenant', 'json'],
  get: ['json'],
  retry: [],
  resend: [],
  recover: ['endpoint', 'since'],
  prune: ['older-than'],
  check: ['repair', 'limit', 'json'],
  'endpoints list': ['limit', 'after', 'json'],
  'endpoints disable': ['reason'],
  'endpoints enable': ['discard', 'replay-since'],
};

/** Parses `plant-store webhooks …` strictly; mistakes are a `UsageError` with one line. `now` dates `--since 24h`. */
export function parseWebhooksArgs(args: readonly string[], now: number): { command: WebhooksCommand; storage: StorageFlags } {
  const { values, positionals } = parseStrict<Values>(args, OPTIONS, true);
  const storage = storageFlags(values);
  if (values.help) return { command: { kind: 'help' }, storage };
  const [first, ...rest] = positionals;
  const kind = first === 'endpoints' ? endpointsKind(rest.shift()) : commandKind(first);
  refuseOtherOptions(values, kind, ALLOWED[kind]);
  return { command: build(kind, values, rest, now), storage };
}

const SUBCOMMANDS = ['list', 'get', 'retry', 'resend', 'recover', 'prune', 'check'] as const;
const EVERY_SUBCOMMAND = `${SUBCOMMANDS.join(', ')} or endpoints`;

function commandKind(word: string | undefined): (typeof SUBCOMMANDS)[number] {
  if (SUBCOMMANDS.includes(word as (typeof SUBCOMMANDS)[number])) return word as (typeof SUBCOMMANDS)[number];
  if (word === undefined) throw new UsageError(`missing subcommand: ${EVERY_SUBCOMMAND}`);
  throw new UsageError(`unknown subcommand '${word}': use ${EVERY_SUBCOMMAND}`);
}

function endpointsKind(word: string | undefined): 'endpoints list' | 'endpoints disable' | 'endpoints enable' {
  if (word === 'list' || word === 'disable' || word === 'enable') return `endpoints ${word}`;
  if (word === undefined) throw new UsageError('missing endpoints subcommand: list, disable or enable');
  throw new UsageError(`unknown endpoints subcommand '${word}': use list, disable or enable`);
}

function build(kind: Exclude<WebhooksCommand['kind'], 'help'>, values: Values, rest: string[], now: number): WebhooksCommand {
  switch (kind) {
    case 'list':
      noArguments(rest);
      return {
        kind,
        status: status(values.status),
        limit: limit(values.limit),
        endpoint: nonEmpty(values.endpoint, 'endpoint'),
        tenant: nonEmpty(values.tenant, 'tenant'),
        json: values.json ?? false,
      };
    case 'get':
      return { kind, id: oneId(kind, rest), json: values.json ?? false };
    case 'endpoints list':
      noArguments(rest);
      return { kind, limit: limit(values.limit), after: nonEmpty(values.after, 'after'), json: values.json ?? false };
    case 'recover':
      noArguments(rest);
      if (values.endpoint === undefined || values.endpoint === '') throw new UsageError('recover needs --endpoint <endpoint-id>');
      if (values.since === undefined) throw new UsageError('recover needs --since <time>');
      return { kind, endpoint: values.endpoint, since: time('--since', values.since, now) };
    case 'prune': {
      noArguments(rest);
      const value = values['older-than'];
      if (value === undefined) return { kind };
      const olderThan = parseDuration(value, Number.MAX_SAFE_INTEGER);
      if (olderThan === undefined) throw new UsageError('--older-than must be a duration such as 30d, 12h or 90m');
      return { kind, olderThan };
    }
    case 'check':
      noArguments(rest);
      return { kind, repair: values.repair ?? false, limit: limit(values.limit), json: values.json ?? false };
    case 'endpoints disable':
    case 'endpoints enable':
      return endpointStatusCommand(kind, values, rest, now);
    default:
      return { kind, id: oneId(kind, rest) };
  }
}

function endpointStatusCommand(kind: 'endpoints disable' | 'endpoints enable', values: Values, rest: string[], now: number): WebhooksCommand {
  const id = oneId(kind, rest);
  if (kind === 'endpoints disable') return { kind, id, reason: values.reason === '' ? undefined : values.reason };
  return { kind, id, parked: parkedChoice(values, now) };
}

/** `--discard`, `--replay-since <time>` or neither (replay all); both together would contradict each other. */
function parkedChoice(values: Values, now: number): ParkedChoice {
  const replaySince = values['replay-since'];
  if (values.discard && replaySince !== undefined) {
    throw new UsageError('--discard and --replay-since cannot go together: --replay-since already discards the messages created before it');
  }
  if (values.discard) return { action: 'discard' };
  return replaySince === undefined ? { action: 'replay' } : { action: 'replay', since: time('--replay-since', replaySince, now) };
}

function noArguments(rest: readonly string[]): void {
  if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
}

function oneId(kind: string, rest: readonly string[]): string {
  if (rest.length === 0 || rest[0] === '') throw new UsageError(`${kind} needs an id`);
  if (rest.length > 1) throw new UsageError(`unexpected argument '${rest[1]}'`);
  return rest[0]!;
}

function status(value: string | undefined): DeliveryStatus | undefined {
  if (value !== undefined && !DELIVERY_STATUSES.includes(value as DeliveryStatus)) {
    throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  return value as DeliveryStatus | undefined;
}

function limit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new UsageError('--limit must be an integer from 1 to 999999999');
  return Number(value);
}

const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;

/** `--since`, `--replay-since`: an RFC 3339 time, or a duration before `now`. */
function time(flag: string, value: string, now: number): number {
  const ago = parseDuration(value);
  if (ago !== undefined) return now - ago;
  const at = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`${flag} must be an RFC 3339 time such as 2026-01-02T03:04:05Z or a duration such as 24h`);
  return at;
}
