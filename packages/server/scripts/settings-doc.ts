// `pnpm docs:settings`: rewrites the settings table of docs/configuration.md
// from the SETTINGS table, the one source of the service's settings.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSettingsTable } from '../src/config/settings-markdown.js';

const file = join(import.meta.dirname, '..', '..', '..', 'docs', 'configuration.md');
const before = readFileSync(file, 'utf8');
const after = withSettingsTable(before);
if (after !== before) writeFileSync(file, after);
process.stdout.write(`${file}: ${after === before ? 'already up to date' : 'settings table rewritten'}\n`);
