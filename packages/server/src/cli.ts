#!/usr/bin/env node
import { runCli } from './cli/run-cli.js';

const status = await runCli(process.argv.slice(2), process.env, process);
process.exitCode = status;
// Catches a handle some dependency left behind.
setTimeout(() => process.exit(status), 250).unref();
