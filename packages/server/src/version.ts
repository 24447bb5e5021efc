import { createRequire } from 'node:module';

// `../package.json` is the package root both from src/ (tests, tsx) and from
// dist/ (the built CLI), so one relative path serves both layouts.
const packageJson = createRequire(import.meta.url)('../package.json') as { version: string };

/** Version of @plant-store/server, as in its package.json (used in the user agent and `--version`). */
export const version: string = packageJson.version;
