import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Plant } from '@plant-store/core';
import { writePlantList, writePlantPage } from './write-plant-list.js';

/** Just the part of ServerResponse the writer uses, recording what it is given. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  status: number | undefined;
  headers: string[] = [];
  writes: string[] = [];
  ended = false;
  /** What write() returns: false simulates a full socket buffer. */
  writable = true;
  /** As on ServerResponse: a write returned false and 'drain' has not come yet. */
  writableNeedDrain = false;
  readonly order: string[];

  constructor(order: string[] = []) {
    super();
    this.order = order;
  }
  writeHead(status: number, headers: string[]): this {
    this.status = status;
    this.headers = headers;
    return this;
  }
  write(chunk: string): boolean {
    this.writes.push(chunk);
    this.order.push('write');
    if (!this.writable) this.writableNeedDrain = true;
    return this.writable;
  }
  end(chunk?: string): this {
    if (chunk !== undefined) this.writes.push(chunk);
    this.ended = true;
    return this;
  }
  get body(): string {
    return this.writes.join('');
  }
  header(name: string): string | undefined {
    const index = this.headers.indexOf(name);
    return index === -1 ? undefined : this.headers[index + 1];
  }
}

const plants = (from: number, count: number): Plant[] => Array.from({ length: count }, (_, index) => ({ id: BigInt(from + index), name: `p${from + index}` }));

/** Batches as an async generator that records whether it was closed. */
function batchesOf(list: Plant[][], state = { closed: false, failAt: -1 }) {
  return {
    state,
    async *[Symbol.asyncIterator]() {
      try {
        for (let index = 0; index < list.length; index++) {
          if (index === state.failAt) throw new Error('storage failed');
          yield list[index]!;
        }
      } finally {
        state.closed = true;
      }
    },
  };
}

const write = (res: FakeResponse, batches: AsyncIterable<Plant[]>, extra?: string[]) => writePlantList(res as unknown as ServerResponse, 'rid', batches, extra);

describe('writePlantList', () => {
  it('sends an empty list in one piece with a content-length', async () => {
    const res = new FakeResponse();
    await write(res, batchesOf([]));
    expect(res.status).toBe(200);
    expect(res.body).toBe('[]');
    expect(res.header('content-length')).toBe('2');
    expect(res.header('x-request-id')).toBe('rid');
  });

  it('sends a single batch in one piece with a content-length and extra headers', async () => {
    const res = new FakeResponse();
    await write(res, batchesOf([plants(1, 2)]), ['link', '<x>; rel="next"']);
    expect(res.body).toBe('[{"id":1,"name":"p1"},{"id":2,"name":"p2"}]');
    expect(res.header('content-length')).toBe(String(res.body.length));
    expect(res.header('link')).toBe('<x>; rel="next"');
  });

  it('streams several batches without a content-length, one write per batch', async () => {
    const res = new FakeResponse();
    await write(res, batchesOf([plants(1, 2), plants(3, 1), plants(4, 3)]), ['link', 'l']);
    expect(res.header('content-length')).toBeUndefined();
    expect(res.header('link')).toBe('l');
    expect(res.writes).toHaveLength(4);
    expect(JSON.parse(res.body)).toEqual(plants(1, 6).map((plant) => ({ id: Number(plant.id), name: plant.name })));
    expect(res.ended).toBe(true);
  });

  it('skips empty batches without breaking the JSON', async () => {
    for (const list of [
      [[], plants(1, 1), [], plants(2, 1)],
      [plants(1, 1), [], [], plants(2, 1), []],
      [[], [], []],
    ]) {
      const res = new FakeResponse();
      await write(res, batchesOf(list));
      expect(JSON.parse(res.body)).toHaveLength(list.flat().length);
    }
  });

  it('yields to the event loop between batches, even when storage answers at once', async () => {
    const order: string[] = [];
    const res = new FakeResponse(order);
    setImmediate(() => order.push('other work'));
    await write(res, batchesOf([plants(1, 1), plants(2, 1), plants(3, 1), plants(4, 1)]));
    // Without yielding, all writes would happen before the immediate runs.
    expect(order.indexOf('other work')).toBeGreaterThan(-1);
    expect(order.indexOf('other work')).toBeLessThan(order.lastIndexOf('write'));
  });

  it('yields a macrotask turn between batches when a fast socket drains on process.nextTick', async () => {
    // A fast client: every write completes at once, yet write() reports a full
    // buffer (a batch is bigger than the high-water mark) and 'drain' follows
    // on process.nextTick, before any I/O or timer callback could run.
    class FastSocketResponse extends FakeResponse {
      override write(chunk: string): boolean {
        super.write(chunk);
        process.nextTick(() => this.emit('drain'));
        return false;
      }
    }
    const order: string[] = [];
    const res = new FastSocketResponse(order);
    setImmediate(() => order.push('other work'));
    await write(res, batchesOf([plants(1, 1), plants(2, 1), plants(3, 1), plants(4, 1)]));
    expect(JSON.parse(res.body)).toHaveLength(4);
    expect(order.indexOf('other work')).toBeGreaterThan(-1);
    expect(order.indexOf('other work')).toBeLessThan(order.lastIndexOf('write'));
  });

  it('waits for drain when the socket pushes back', async () => {
    const res = new FakeResponse();
    res.writable = false;
    const done = write(res, batchesOf([plants(1, 1), plants(2, 1), plants(3, 1)]));
    for (let turn = 0; turn < 5; turn++) await new Promise(setImmediate);
    expect(res.writes).toHaveLength(1);
    res.writable = true;
    res.writableNeedDrain = false;
    res.emit('drain');
    await done;
    expect(JSON.parse(res.body)).toHaveLength(3);
  });

  it('goes on when the socket drained while the next batch was still being read (slow storage)', async () => {
    const res = new FakeResponse();
    const pending: Array<() => void> = [];
    const slow = {
      async *[Symbol.asyncIterator]() {
        for (let batch = 0; batch < 4; batch++) {
          await new Promise<void>((resolve) => pending.push(resolve));
          yield plants(batch * 10, 2);
        }
      },
    };
    const done = write(res, slow);
    const release = async () => {
      while (pending.length === 0) await new Promise(setImmediate);
      pending.shift()!();
    };
    await release();
    await release();
    while (res.writes.length === 0) await new Promise(setImmediate);
    // The second batch's write pushes back ...
    res.writable = false;
    while (pending.length === 0) await new Promise(setImmediate);
    expect(res.writes).toHaveLength(2);
    // ... and the socket drains while the third batch is still being read.
    res.writable = true;
    res.writableNeedDrain = false;
    res.emit('drain');
    await release();
    await release();
    const finished = await Promise.race([done.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]);
    expect(finished, 'the list hung waiting for a drain that had already happened').toBe(true);
    expect(JSON.parse(res.body)).toHaveLength(8);
  });

  it('stops reading storage when the client goes away', async () => {
    const res = new FakeResponse();
    res.writable = false;
    const batches = batchesOf([plants(1, 1), plants(2, 1), plants(3, 1), plants(4, 1)]);
    const done = write(res, batches);
    await new Promise(setImmediate);
    res.destroyed = true;
    res.emit('close');
    await done;
    expect(res.writes).toHaveLength(1);
    expect(res.ended).toBe(false);
    expect(batches.state.closed).toBe(true);
  });

  it('finishes when the client went away during a storage read under back-pressure', async () => {
    const res = new FakeResponse();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batches = {
      closed: false,
      async *[Symbol.asyncIterator]() {
        try {
          yield plants(1, 1);
          yield plants(2, 1);
          await gate;
          yield plants(3, 1);
          yield plants(4, 1);
        } finally {
          batches.closed = true;
        }
      },
    };
    const done = write(res, batches);
    while (res.writes.length < 1) await new Promise(setImmediate);
    // The socket pushes back on the second batch, then the client goes away
    // while the third is being read: 'close' is past by the time the writer
    // would wait for 'drain'.
    res.writable = false;
    while (res.writes.length < 2) await new Promise(setImmediate);
    res.destroyed = true;
    res.emit('close');
    release();
    await done;
    expect(res.ended).toBe(false);
    expect(batches.closed).toBe(true);
  });

  it('rejects before the headers when the first read fails, and after them when a later one does', async () => {
    const early = new FakeResponse();
    await expect(write(early, batchesOf([plants(1, 1)], { closed: false, failAt: 0 }))).rejects.toThrow('storage failed');
    expect(early.status).toBeUndefined();

    const late = new FakeResponse();
    const batches = batchesOf([plants(1, 1), plants(2, 1), plants(3, 1)], { closed: false, failAt: 2 });
    await expect(write(late, batches)).rejects.toThrow('storage failed');
    expect(late.status).toBe(200);
    expect(late.ended).toBe(false);
    expect(batches.state.closed).toBe(true);
  });
});

describe('writePlantPage', () => {
  it('sends a page in one piece with a content-length and extra headers', () => {
    const res = new FakeResponse();
    writePlantPage(res as unknown as ServerResponse, 'rid', [...plants(1, 2), { id: -9223372036854775808n, name: 'é', tag: 't' }], ['link', 'l']);
    expect(res.status).toBe(200);
    expect(res.body).toBe('[{"id":1,"name":"p1"},{"id":2,"name":"p2"},{"id":-9223372036854775808,"name":"é","tag":"t"}]');
    expect(res.header('content-length')).toBe(String(Buffer.byteLength(res.body)));
    expect(res.header('x-request-id')).toBe('rid');
    expect(res.header('link')).toBe('l');
    expect(res.ended).toBe(true);

    const empty = new FakeResponse();
    writePlantPage(empty as unknown as ServerResponse, 'rid', [], undefined);
    expect(empty.body).toBe('[]');
  });
});
