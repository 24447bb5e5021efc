import { StorageError } from '@plant-store/core';

/** Open/closed state shared by the parts of one memory storage, so all of them reject after `close()`. */
export interface MemoryLifecycle {
  closed: boolean;
}

/** Throws the `StorageError` every member rejects with once the storage is closed. */
export function assertOpen(lifecycle: MemoryLifecycle): void {
  if (lifecycle.closed) throw new StorageError('memory storage is closed');
}
