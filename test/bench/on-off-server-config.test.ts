import { describe, expect, it } from 'vitest';
import { onOffServerConfig } from '../../bench/scenarios/on-off-scenario.js';

const base = { storage: 'memory', dbFile: '/tmp/unused.db' } as const;

describe('onOffServerConfig', () => {
  it('keeps the node flags of the feature, the group and the profile, in that order', () => {
    const config = onOffServerConfig(
      base,
      { nodeFlags: ['--import', '/preload.mjs'] },
      { nodeFlags: ['--max-semi-space-size=16'] },
      { nodeFlags: ['--cpu-prof', '--cpu-prof-dir=/profiles'] },
    );
    expect(config.nodeFlags).toEqual(['--import', '/preload.mjs', '--max-semi-space-size=16', '--cpu-prof', '--cpu-prof-dir=/profiles']);
  });

  it('lets the group override the feature, and the feature the defaults, for every other setting', () => {
    const config = onOffServerConfig(base, { env: { FEATURE: 'on' }, webhookTimeout: '5s' }, { webhookTimeout: '1h' }, {});
    expect(config).toMatchObject({ storage: 'memory', dbFile: '/tmp/unused.db', env: { FEATURE: 'on' }, webhookTimeout: '1h' });
    expect(config.tokens).toBeDefined();
    expect(config.nodeFlags).toEqual([]);
  });
});
