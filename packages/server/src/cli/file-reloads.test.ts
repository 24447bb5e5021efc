import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ServeArgs, ServeConfig } from '../config/load-config.js';
import type { ServeHandle } from '../serve.js';
import { fileReloads } from './file-reloads.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-file-reloads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fileReloads', () => {
  it('reloads on SIGHUP while serving, and after stop() leaves no SIGHUP listener behind and reloads nothing', () => {
    const tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, '[]');
    const listenersBefore = process.listenerCount('SIGHUP');
    const reloads = fileReloads({ tokensFile } as ServeConfig, {} as ServeArgs, {});
    const reload = vi.fn();
    reloads.serving({ reload } as unknown as ServeHandle);
    expect(process.listenerCount('SIGHUP')).toBe(listenersBefore + 1);
    process.emit('SIGHUP', 'SIGHUP');
    expect(reload).toHaveBeenCalledWith(expect.objectContaining({ tokens: expect.any(Function) }), 'SIGHUP');

    reloads.stop();
    expect(process.listenerCount('SIGHUP')).toBe(listenersBefore);
    reload.mockClear();
    process.emit('SIGHUP', 'SIGHUP'); // calls the listeners only: no signal reaches the process
    expect(reload).not.toHaveBeenCalled();
  });
});
