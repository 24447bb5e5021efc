/** The NOTIFY channel that announces new deliveries; the payload is the schema's name, so other schemas' storages ignore it. */
export const OUTBOX_CHANNEL = 'plant_store_outbox';

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
