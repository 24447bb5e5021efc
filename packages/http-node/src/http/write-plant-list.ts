import type { ServerResponse } from 'node:http';
import type { Plant } from '@plant-store/core';
import { plantToJson } from '@plant-store/core/adapter';
import { sendJson } from './send-json.js';

/**
 * Writes a listing as one JSON array without holding all of it. Two batches are read before the status line, so an
 * early storage failure is still a proper error and a one-batch list gets a `content-length`; longer lists stream.
 */
export async function writePlantList(
  res: ServerResponse,
  requestId: string,
  batches: AsyncIterable<Plant[]>,
  extraHeaders: readonly string[] | undefined,
): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  try {
    let step = await iterator.next();
    const first = step.done ? '' : serializeBatch(step.value);
    if (!step.done) step = await iterator.next();
    if (step.done) {
      sendJson(res, requestId, 200, `[${first}]`, extraHeaders);
      return;
    }
    const headers = ['content-type', 'application/json', 'x-request-id', requestId];
    if (extraHeaders !== undefined) for (const item of extraHeaders) headers.push(item);
    res.writeHead(200, headers);
    let writable = res.write(`[${first}`);
    let separator = first === '' ? '' : ',';
    while (!step.done) {
      // Always a macrotask turn: on a fast socket 'drain' comes on nextTick and would never let other requests in.
      if (!writable) await drained(res);
      await nextTurn();
      if (res.destroyed) return;
      const text = serializeBatch(step.value);
      if (text !== '') {
        writable = res.write(separator + text);
        separator = ',';
      }
      step = await iterator.next();
    }
    if (!res.destroyed) res.end(']');
  } finally {
    // Ends the storage read early when the client went away or a write failed.
    await iterator.return?.();
  }
}

export function writePlantPage(res: ServerResponse, requestId: string, plants: readonly Plant[], extraHeaders: readonly string[] | undefined): void {
  sendJson(res, requestId, 200, `[${serializeBatch(plants)}]`, extraHeaders);
}

function serializeBatch(plants: readonly Plant[]): string {
  if (plants.length === 0) return '';
  let text = plantToJson(plants[0]!);
  for (let index = 1; index < plants.length; index++) text += `,${plantToJson(plants[index]!)}`;
  return text;
}

// After pending I/O callbacks: requests that arrived meanwhile go before the next batch.
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves on 'drain', or on 'close' when the client went away (at once if it already has: 'close' will not fire again). */
function drained(res: ServerResponse): Promise<void> {
  // It may have drained while the next batch was read: waiting for another 'drain' would hang.
  if (res.destroyed || !res.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
