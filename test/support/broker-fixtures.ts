import { afterEach } from 'vitest';
import type { LogFields, Logger } from '@plant-store/core/adapter';
import { BROKERS, startConsumer, type BrokerConsumer, type BrokerKind } from './broker-consumers.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** Consumers and proxies for a broker suite, each closed after its test (last opened, first closed). */
export interface BrokerFixtures {
  /** Runs `cleanup` after the current test, before what was opened earlier in it. */
  defer(cleanup: () => Promise<void>): void;
  /** A consumer of a fresh exchange/stream/subject/topic on the broker of `kind`. */
  consumer(kind: BrokerKind): Promise<BrokerConsumer>;
  /** A TCP proxy in front of the broker of `kind`, to cut and restore it. */
  proxy(kind: BrokerKind): Promise<TcpProxy>;
}

/** Call at the top of a test file: registers the `afterEach` that closes what its tests opened. */
export function brokerFixtures(): BrokerFixtures {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const defer = (cleanup: () => Promise<void>) => void cleanups.push(cleanup);
  return {
    defer,
    async consumer(kind) {
      const started = await startConsumer(kind);
      defer(() => started.close());
      return started;
    },
    async proxy(kind) {
      const started = await startTcpProxy(BROKERS[kind]);
      defer(() => started.close());
      return started;
    },
  };
}

/** A logger that keeps each line as `level message {fields}` text, to check that no credential reaches the log. */
export function textLogger(lines: string[]): Logger {
  const record = (level: string) => (message: string, fields?: LogFields) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}
