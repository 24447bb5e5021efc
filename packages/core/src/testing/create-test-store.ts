import { createPlantStore } from '../composition/create-plant-store.js';
import type { PlantStore, PlantStoreOptions, PlantStoreWebhookOptions } from '../composition/plant-store.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import { recordingTransport, type CapturingTransport } from './capturing-transport.js';
import { manualClock, MANUAL_CLOCK_START, type ManualClock } from './manual-clock.js';

export interface TestStoreOptions extends Omit<PlantStoreOptions, 'clock' | 'webhooks'> {
  /** Where the manual clock starts, in epoch ms. @default MANUAL_CLOCK_START (2026-01-01T00:00:00Z) */
  readonly startAt?: number;
  /** Webhook settings as for `createPlantStore`, without the transport (the store's is the capturing one). @default jitter 0, the rest as in createPlantStore */
  readonly webhooks?: Omit<PlantStoreWebhookOptions, 'transport'>;
}

/** A real store whose time is a `ManualClock` and whose webhooks go to a `CapturingTransport`. */
export interface TestStore extends PlantStore {
  /** The store's time: `advance` it to make retries (and lease ends, retention) due at once. */
  readonly clock: ManualClock;
  /** What the store sent, and how the "receiver" answers. */
  readonly deliveries: CapturingTransport;
}

/** The real store for tests: time moves only on `clock.advance(ms)` (which wakes the dispatcher), requests land in `deliveries`, no jitter. */
export function createTestStore(options: TestStoreOptions): TestStore {
  const { startAt, webhooks, storage, ...rest } = options;
  const clock = manualClock(startAt ?? MANUAL_CLOCK_START);
  // `waitFor(n)` also waits for n recorded attempts: only then is a retry scheduled, so an `advance` right after finds it due.
  let recorded = 0;
  const { transport: deliveries, recheck } = recordingTransport((count) => recorded >= count);
  const store = createPlantStore({
    ...rest,
    storage: wakingOnAdvance(storage, clock),
    clock,
    webhooks: { jitter: 0, ...webhooks, transport: deliveries },
  });
  store.events.on('webhook.attempted', () => {
    recorded++;
    recheck();
  });
  return Object.assign(store, { clock, deliveries });
}

/** The storage with an outbox whose `watch` (what wakes the dispatcher) also fires when the clock advances. */
function wakingOnAdvance(storage: Storage, clock: ManualClock): Storage {
  const outbox = storage.outbox;
  const watch = (listener: () => void): (() => void) => {
    const stopClock = clock.onAdvance(listener);
    const stopStorage = outbox.watch?.(listener);
    return () => {
      stopClock();
      stopStorage?.();
    };
  };
  // A proxy, not a copy: the outbox's optional members (a shared rate budget) must stay as the adapter has them.
  const waking = new Proxy(outbox, {
    has: (target, member) => member === 'watch' || Reflect.has(target, member),
    get(target, member, receiver) {
      if (member === 'watch') return watch;
      const value: unknown = Reflect.get(target, member, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) satisfies WebhookOutbox;
  return {
    plants: storage.plants,
    outbox: waking,
    endpoints: storage.endpoints,
    portalLinks: storage.portalLinks,
    ...(storage.dbSystem === undefined ? {} : { dbSystem: storage.dbSystem }),
    ping: () => storage.ping(),
    close: () => storage.close(),
  };
}
