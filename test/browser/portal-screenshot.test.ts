import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasBrowser } from '../support/chromium.js';
import { ROOT, TSX } from '../support/cli-process.js';

// The script that takes docs/images/portal.png, run as docs/portal.md says (into a scratch file here), so the
// picture can always be taken again. Skipped without the browser, as the other browser suites are, except under CI=true.
const skip = !hasBrowser && process.env.CI !== 'true';
const SKIP_REASON = `browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`;

describe.skipIf(skip)(`scripts/portal-screenshot.ts${skip ? ` (${SKIP_REASON})` : ''}`, () => {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-portal-screenshot-test-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('saves a 1280 x 900 PNG of the endpoints page', { timeout: 120_000 }, async () => {
    const output = join(folder, 'portal.png');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'scripts/portal-screenshot.ts', output], {
      cwd: ROOT,
      timeout: 100_000,
    });
    expect(stdout).toBe(`saved ${output}\n`);
    const png = readFileSync(output);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 900]);
  });
});
