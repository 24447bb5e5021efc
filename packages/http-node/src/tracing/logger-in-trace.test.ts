import { context, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { silentLogger, type Logger } from '@plant-store/core/adapter';
import { describe, expect, it } from 'vitest';
import { loggerInTrace } from './logger-in-trace.js';

const request = ROOT_CONTEXT.setValue(Symbol('request'), 'traced');

describe('loggerInTrace', () => {
  it('takes the logger\u2019s own logger for the trace context when it has one', () => {
    const given: Context[] = [];
    const own: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    const logger: Logger = { ...own, inTrace: (traceContext) => (given.push(traceContext), own) };
    expect(loggerInTrace(logger, request)).toBe(own);
    expect(given).toEqual([request]);
    // The silent logger is its own, in a trace as outside: nothing is wrapped for lines it drops.
    expect(loggerInTrace(silentLogger, request)).toBe(silentLogger);
  });

  it('writes each entry of a logger without one inside the trace context, with its arguments', () => {
    let active: Context = ROOT_CONTEXT;
    // The least context manager: the context a `with` enters, for its synchronous run.
    context.setGlobalContextManager({
      active: () => active,
      with: (entered, fn, thisArg, ...args) => {
        const before = active;
        active = entered;
        try {
          return fn.apply(thisArg, args);
        } finally {
          active = before;
        }
      },
      bind: (_context, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    });
    try {
      const seen: [string, string, object | undefined, boolean][] = [];
      const record = (level: string) => (message: string, fields?: object) => void seen.push([level, message, fields, context.active() === request]);
      const inTrace = loggerInTrace({ debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') }, request);
      inTrace.debug('d');
      inTrace.info('i', { status: 200 });
      inTrace.warn('w');
      inTrace.error('e');
      expect(seen).toEqual([
        ['debug', 'd', undefined, true],
        ['info', 'i', { status: 200 }, true],
        ['warn', 'w', undefined, true],
        ['error', 'e', undefined, true],
      ]);
    } finally {
      context.disable();
    }
  });
});
