import { StorageError } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';

const closedError = () => new StorageError('sqlite storage is closed');

/**
 * A storage on a host's connection, made to reject every call once closed: the host's connection stays open after
 * `close()`, so its statements would otherwise keep answering, unlike those of a storage on a connection of its own.
 */
export function refusingAfterClose(storage: Storage): Storage {
  let closed = false;
  const isClosed = () => closed;
  return {
    ...storage,
    plants: rejectingWhenClosed(storage.plants, isClosed),
    outbox: rejectingWhenClosed(storage.outbox, isClosed),
    endpoints: rejectingWhenClosed(storage.endpoints, isClosed),
    portalLinks: rejectingWhenClosed(storage.portalLinks, isClosed),
    joinTransaction(executor) {
      if (closed) throw closedError();
      return storage.joinTransaction!(executor);
    },
    ping: () => (closed ? Promise.reject(closedError()) : storage.ping()),
    close() {
      closed = true;
      return storage.close();
    },
  };
}

/** Every method of `member`, rejecting once `isClosed()`. */
function rejectingWhenClosed<T extends object>(member: T, isClosed: () => boolean): T {
  return new Proxy(member, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (isClosed() ? Promise.reject(closedError()) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}
