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

describe('--endpoint-deliveries', () => {
  it('queues 20,000 deliveries per endpoint-scale run unless told fewer (3,000 in a quick run)', () => {
    expect(parseBenchOptions([]).endpointDeliveries).toBe(20_000);
    expect(parseBenchOptions(['--quick']).endpointDeliveries).toBe(3_000);
    expect(parseBenchOptions(['--endpoint-deliveries', '5000']).endpointDeliveries).toBe(5_000);
  });

  it('refuses what is not a positive number, and runs endpoint-scale only when named', () => {
    expect(() => parseBenchOptions(['--endpoint-deliveries', '0'])).toThrow(/--endpoint-deliveries must be a positive number/);
    expect(parseBenchOptions([]).scenarios.has('endpoint-scale')).toBe(false);
    expect(parseBenchOptions(['--scenario', 'endpoint-scale']).scenarios.has('endpoint-scale')).toBe(true);
  });
});

describe('the usage text', () => {
  it('says that the opt-in scenarios run only when named, and what broker-destinations and endpoint-scale need', () => {
    const usage = (() => {
      try {
        parseBenchOptions(['--scenario', 'nope']);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(usage).toContain('steady-state, pg-steady-state, broker-destinations, endpoint-scale run only when named');
    expect(usage).toContain('broker-destinations needs RabbitMQ');
    expect(usage).toContain('--endpoint-deliveries per run');
    expect(usage).not.toMatch(/export const|\$\{/);
  });
});
