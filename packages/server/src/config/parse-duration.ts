const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

// Node timers overflow above this (firing after 1 ms): longer delays would become immediate retries.
export const MAX_DURATION_MS = 2 ** 31 - 1;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/** Milliseconds of a duration such as `500ms` or `1.5m` (a bare `5` could mean anything); `undefined` when not one or above `max`. */
export function parseDuration(text: string, max = MAX_DURATION_MS): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const ms = Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  return ms <= max ? ms : undefined;
}

/** `5s,5m,30m` as milliseconds; `none` is the empty list. */
export function parseDurationList(text: string): number[] | undefined {
  if (text.trim() === 'none') return [];
  const items = text.split(',').map((item) => parseDuration(item));
  return items.every((item) => item !== undefined) ? (items as number[]) : undefined;
}

/** The shortest exact spelling of a duration: `300000` → `5m`, `1500` → `1500ms`. */
export function formatDuration(ms: number): string {
  for (const unit of ['h', 'm', 's'] as const) if (ms > 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}
