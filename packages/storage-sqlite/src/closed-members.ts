import { StorageError } from '@plant-store/core';

/**
 * A member of a storage on a host's connection, made to reject once the storage is closed: the host's connection stays
 * open after `close()`, so the statements would otherwise keep answering, unlike a storage on its own connection.
 */
export function rejectingWhenClosed<T extends object>(member: T, isClosed: () => boolean): T {
  return new Proxy(member, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        isClosed() ? Promise.reject(new StorageError('sqlite storage is closed')) : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}
