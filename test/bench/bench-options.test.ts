import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../bench/lib/bench-options.js';

describe('--tracing-sampler', () => {
  it('is unset by default: the tracing scenario records every request', () => {
    expect(parseBenchOptions([]).tracingSampler).toBeUndefined();
  });

  it('takes a sampler name, and its argument after a colon', () => {
    expect(parseBenchOptions(['--tracing-sampler', 'always_off']).tracingSampler).toEqual({ name: 'always_off', arg: undefined });
    expect(parseBenchOptions(['--tracing-sampler', 'parentbased_traceidratio:0.01']).tracingSampler).toEqual({ name: 'parentbased_traceidratio', arg: '0.01' });
  });

  it('refuses what is not a sampler name', () => {
    expect(() => parseBenchOptions(['--tracing-sampler', 'Always Off'])).toThrow(/--tracing-sampler must be a sampler name/);
  });
});

describe('the busy-wait scenario', () => {
  it('runs only when named, spinning 2 µs unless --busy-wait-us says otherwise', () => {
    expect(parseBenchOptions([]).scenarios.has('busy-wait')).toBe(false);
    const named = parseBenchOptions(['--scenario', 'busy-wait']);
    expect([...named.scenarios]).toEqual(['busy-wait']);
    expect(named.busyWaitUs).toBe(2);
    expect(parseBenchOptions(['--scenario', 'busy-wait', '--busy-wait-us', '0.5']).busyWaitUs).toBe(0.5);
  });

  it('refuses a spin that is not a positive number of microseconds', () => {
    expect(() => parseBenchOptions(['--busy-wait-us', '0'])).toThrow(/--busy-wait-us must be a positive number/);
    expect(() => parseBenchOptions(['--busy-wait-us', 'two'])).toThrow(/--busy-wait-us must be a positive number/);
  });
});

describe('--node', () => {
  it('runs on Node 24 unless told another tested line', () => {
    expect(parseBenchOptions([]).node).toBe('24');
    expect(parseBenchOptions(['--node', '20']).node).toBe('20');
    expect(parseBenchOptions(['--node', '26']).node).toBe('26');
  });

  it('refuses a line the suite is not tested on', () => {
    expect(() => parseBenchOptions(['--node', '22'])).toThrow(/--node must be one of 20, 24, 26/);
  });
});
