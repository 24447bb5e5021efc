import { existsSync } from 'node:fs';

// The browser the browser suites drive: headless Chromium from the Debian
// package (.ci/run installs it), launched the same way by every suite.

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
export const hasBrowser = existsSync(CHROMIUM);
