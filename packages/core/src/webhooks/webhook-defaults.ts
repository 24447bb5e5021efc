import { createRequire } from 'node:module';

/** Default delays between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** Default time one attempt may take, in ms: enough for a receiver that works before answering, short for a hung one holding a slot. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

/** A tenant endpoint failing every attempt this long (with a message exhausted) is disabled: 5 days. */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 86_400_000;

/** Most webhook endpoints one tenant may have: it also bounds how many deliveries one plant write queues. */
export const DEFAULT_MAX_ENDPOINTS_PER_TENANT = 50;

/** After a rotation, the previous secret still signs this long: 24 hours. */
export const DEFAULT_SECRET_OVERLAP_MS = 86_400_000;

/** Delivered and failed deliveries (with their attempts) are deleted once finished this long ago: 30 days. */
export const DEFAULT_WEBHOOK_RETENTION_MS = 30 * 86_400_000;

/** How long the dispatcher keeps a tenant endpoint it read, in ms: the longest a change made through another process goes unseen when its notice is lost (changes made through this store apply at once). */
export const DEFAULT_ENDPOINT_CACHE_MS = 5_000;

/** `plant-store/<version of @plant-store/core>`, the default `user-agent`. */
export const DEFAULT_USER_AGENT = `plant-store/${packageVersion()}`;

// Read at run time so src/ and dist/ (both two levels below the package) report the published version.
function packageVersion(): string {
  try {
    const manifest = createRequire(import.meta.url)('../../package.json') as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
