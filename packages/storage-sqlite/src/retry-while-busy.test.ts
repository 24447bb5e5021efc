import { describe, expect, it } from 'vitest';
import { retryWhileBusy } from './retry-while-busy.js';

const sqliteError = (code: string) => Object.assign(new Error(code), { code });

describe('retryWhileBusy', () => {
  it('runs again while the attempt fails with SQLITE_BUSY or an extended busy code, then returns its result', async () => {
    const failures = [sqliteError('SQLITE_BUSY'), sqliteError('SQLITE_BUSY_RECOVERY')];
    let attempts = 0;
    const result = await retryWhileBusy(5000, async () => {
      attempts++;
      const failure = failures.shift();
      if (failure) throw failure;
      return 'done';
    });
    expect({ result, attempts }).toEqual({ result: 'done', attempts: 3 });
  });

  it('throws any other error at once', async () => {
    let attempts = 0;
    const failure = retryWhileBusy(5000, () => {
      attempts++;
      throw sqliteError('SQLITE_READONLY');
    });
    await expect(failure).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(attempts).toBe(1);
  });

  it('gives up with the busy error once the timeout has passed', async () => {
    let attempts = 0;
    const failure = retryWhileBusy(30, () => {
      attempts++;
      throw sqliteError('SQLITE_BUSY');
    });
    await expect(failure).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(attempts).toBeGreaterThan(1);
  });

  it('makes one attempt with a zero timeout', async () => {
    let attempts = 0;
    await expect(
      retryWhileBusy(0, () => {
        attempts++;
        throw sqliteError('SQLITE_BUSY');
      }),
    ).rejects.toThrow('SQLITE_BUSY');
    expect(attempts).toBe(1);
  });
});
