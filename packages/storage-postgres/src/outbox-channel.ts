/**
 * The NOTIFY channel that announces new deliveries (the payload is the schema's name, so other schemas' storages ignore it)
 * and changed endpoints (see endpointChangePayload).
 */
export const OUTBOX_CHANNEL = 'plant_store_outbox';

/** The payload that announces a change of endpoint `id` in `schema`: JSON, so it never equals a schema's name (a new delivery's payload). */
export function endpointChangePayload(schema: string, id: string): string {
  return JSON.stringify({ schema, endpoint: id });
}

/** The endpoint a payload announces a change of in `schema`, or `undefined` when it announces something else. */
export function changedEndpoint(schema: string, payload: string): string | undefined {
  if (!payload.startsWith('{')) return undefined;
  try {
    const notice = JSON.parse(payload) as { schema?: unknown; endpoint?: unknown };
    return notice.schema === schema && typeof notice.endpoint === 'string' ? notice.endpoint : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tells every instance's dispatcher of new deliveries (NOTIFY on {@link OUTBOX_CHANNEL}), after the write has
 * committed and one at a time: a NOTIFY inside the write would make every committing write on the database wait
 * for the notify lock in turn, so concurrent creates could no longer share a WAL flush. Calls made while one is in
 * flight are covered by one more after it; a lost one only delays delivery until the dispatchers' fallback poll.
 */
export function announcer(notify: () => Promise<unknown>): () => void {
  let state: 'idle' | 'sending' | 'again' = 'idle';
  const send = (): void => {
    state = 'sending';
    notify()
      .catch(() => {})
      .finally(() => (state === 'again' ? send() : (state = 'idle')));
  };
  return () => {
    if (state === 'idle') send();
    else state = 'again';
  };
}
