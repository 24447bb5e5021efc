import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { CHAINED_ROOT, SynchronousContextManager } from './synchronous-context-manager.js';

const key = createContextKey('test');
const outer = ROOT_CONTEXT.setValue(key, 'outer');
const inner = ROOT_CONTEXT.setValue(key, 'inner');

describe('SynchronousContextManager', () => {
  it('makes the context active for the synchronous run of `with`, nested, and restores the previous one, also when fn throws', () => {
    const manager = new SynchronousContextManager();
    expect(manager.active()).toBe(CHAINED_ROOT);
    const seen = manager.with(outer, () => {
      const nested = manager.with(inner, () => manager.active());
      expect(() => manager.with(inner, () => {
        throw new Error('boom');
      })).toThrow('boom');
      return [nested, manager.active()];
    });
    expect(seen).toEqual([inner, outer]);
    expect(manager.active()).toBe(CHAINED_ROOT);
  });

  it('passes `this` and the arguments on, and returns what fn returns', () => {
    const manager = new SynchronousContextManager();
    const target = { base: 1 };
    expect(manager.with(outer, function (this: typeof target, a: number, b: number) {
      return this.base + a + b;
    }, target, 2, 3)).toBe(6);
  });

  it('does not follow `await`: code that resumes later sees the context active then, not the one it started in', async () => {
    const manager = new SynchronousContextManager();
    const resumed = await manager.with(outer, async () => {
      expect(manager.active()).toBe(outer);
      await Promise.resolve();
      return manager.active();
    });
    expect(resumed).toBe(CHAINED_ROOT);
  });

  it('binds a function to a context (its own `this` kept) and leaves anything else as it is', () => {
    const manager = new SynchronousContextManager();
    const bound = manager.bind(outer, function (this: { name: string }, suffix: string) {
      return `${this.name}${suffix}:${String(manager.active().getValue(key))}`;
    });
    expect(bound.call({ name: 'fn' }, '!')).toBe('fn!:outer');
    const emitter = { on() {} };
    expect(manager.bind(outer, emitter)).toBe(emitter);
  });

  it('is back at the root context once disabled', () => {
    const manager = new SynchronousContextManager();
    manager.with(outer, () => {
      manager.disable();
      expect(manager.active()).toBe(CHAINED_ROOT);
    });
    expect(manager.enable()).toBe(manager);
  });
});

describe('the root context of SynchronousContextManager', () => {
  const other = createContextKey('other');

  it('holds what is set on it and on its children, each context keeping its own values', () => {
    expect(CHAINED_ROOT.getValue(key)).toBeUndefined();
    const first = CHAINED_ROOT.setValue(key, 'first');
    const both = first.setValue(other, 'other');
    const replaced = both.setValue(key, 'replaced');
    expect([first.getValue(key), first.getValue(other)]).toEqual(['first', undefined]);
    expect([both.getValue(key), both.getValue(other)]).toEqual(['first', 'other']);
    expect([replaced.getValue(key), replaced.getValue(other)]).toEqual(['replaced', 'other']);
    expect(CHAINED_ROOT.getValue(key)).toBeUndefined();
  });

  it('deletes a value in the new context only', () => {
    const set = CHAINED_ROOT.setValue(key, 'set').setValue(other, 'kept');
    const deleted = set.deleteValue(key);
    expect([deleted.getValue(key), deleted.getValue(other)]).toEqual([undefined, 'kept']);
    expect(set.getValue(key)).toBe('set');
  });
});
