import { createRequire } from 'node:module';

// `../package.json` is the package root both from src/ and from dist/.
const packageJson = createRequire(import.meta.url)('../package.json') as { version: string };

export const version: string = packageJson.version;
