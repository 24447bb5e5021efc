import { describe, expect, it } from 'vitest';
import { DiagnosticsLog } from './diagnostics-log.js';

function recordingLogger() {
  const lines: { message: string; fields: unknown }[] = [];
  const others: string[] = [];
  const logger = {
    debug: (message: string) => others.push(`debug ${message}`),
    info: (message: string) => others.push(`info ${message}`),
    error() {},
    warn: (message: string, fields?: unknown) => lines.push({ message, fields }),
  };
  return { logger, lines, others };
}

describe('DiagnosticsLog', () => {
  it('logs warnings and errors as the service’s warnings, errors by their message, and info and debug messages at their levels', () => {
    const { logger, lines, others } = recordingLogger();
    const log = new DiagnosticsLog(logger);
    log.error('an export of spans failed; they are dropped', new Error('Bad Request'));
    log.warn('spans were dropped because the export queue was full', 12);
    log.info('started');
    log.debug('a detail');
    log.verbose('more detail');
    expect(others).toEqual(['info tracing: started', 'debug tracing: a detail', 'debug tracing: more detail']);
    expect(lines).toEqual([
      { message: 'tracing: an export of spans failed; they are dropped', fields: { detail: 'Bad Request' } },
      { message: 'tracing: spans were dropped because the export queue was full', fields: { detail: '12' } },
    ]);
  });

  it('logs the same message at most once per interval, then says how often it came meanwhile', () => {
    const { logger, lines } = recordingLogger();
    let now = 0;
    const log = new DiagnosticsLog(logger, 60_000, () => now);
    log.error('an export of spans failed; they are dropped');
    now = 1_000;
    log.error('an export of spans failed; they are dropped');
    log.error('an export of spans failed; they are dropped');
    log.warn('another problem');
    now = 61_000;
    log.error('an export of spans failed; they are dropped');
    expect(lines).toEqual([
      { message: 'tracing: an export of spans failed; they are dropped', fields: {} },
      { message: 'tracing: another problem', fields: {} },
      { message: 'tracing: an export of spans failed; they are dropped', fields: { repeated: 2 } },
    ]);
  });
});
