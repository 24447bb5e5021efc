import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from './settings.js';
import { settingsMarkdown, withSettingsTable } from './settings-markdown.js';

const configurationDoc = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'configuration.md');

describe('docs/configuration.md', () => {
  it('holds the settings table exactly as SETTINGS renders it', () => {
    const document = readFileSync(configurationDoc, 'utf8');
    const drifted = withSettingsTable(document) !== document;
    expect(drifted, 'docs/configuration.md differs from the SETTINGS table: run `pnpm docs:settings`').toBe(false);
  });
});

describe('settingsMarkdown', () => {
  it('has one row per setting, with its variable, flag and default', () => {
    const lines = settingsMarkdown().split('\n');
    expect(lines).toHaveLength(2 + Object.keys(SETTINGS).length);
    expect(lines).toContain('| `PORT` | `--port` | `8080` | TCP port to listen on (0 = any free port) |');
    expect(lines.find((line) => line.startsWith('| `PLANT_STORE_DATABASE_URL`'))).toMatch(/^\| `PLANT_STORE_DATABASE_URL` \| `--database-url` \| — \|/);
  });

  it('escapes a | inside a cell so the row keeps four cells', () => {
    const table = settingsMarkdown({ tokensFile: { env: 'X', flag: 'x', default: undefined, help: '{token | sha256}' } });
    expect(table.split('\n')[2]).toBe('| `X` | `--x` | — | {token \\| sha256} |');
  });

  it('replaces only what lies between the markers, and refuses a document without them', () => {
    const document = 'intro\n<!-- settings:start -->\nold\n<!-- settings:end -->\nprose\n';
    expect(withSettingsTable(document, 'new')).toBe('intro\n<!-- settings:start -->\nnew\n<!-- settings:end -->\nprose\n');
    expect(() => withSettingsTable('no markers', 'new')).toThrow(/markers/);
  });
});
