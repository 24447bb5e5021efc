#!/usr/bin/env node
// The installed `plant-store` command. It is committed outside dist/ so the
// file exists in a fresh clone before the first build: pnpm links a
// package's bins at install time and warns when a target is missing.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write('error: plant-store is not built yet: run `pnpm build` in the repository first\n');
  process.exitCode = 2;
}
