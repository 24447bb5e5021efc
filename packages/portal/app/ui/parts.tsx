import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formatTime } from './format.js';
import { usePortal } from './portal-context.js';

interface FactProps {
  readonly label: string;
  /** The `data-testid` of the value. */
  readonly testid?: string;
  readonly children?: ComponentChildren;
}

/** One term and its value in a `<dl class="facts">`. */
export function Fact({ label, testid, children }: FactProps) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testid}>{children}</dd>
    </div>
  );
}

/** A time as the reader reads it, machine-readable in `dateTime`. */
export function Time({ at }: { readonly at: Date }) {
  return <time dateTime={at.toISOString()}>{formatTime(at)}</time>;
}

/**
 * Whether an action is running, and how to run one: with `busy` set
 * meanwhile (buttons disabled) and its failure handed to the page.
 */
export function useAction(): [busy: boolean, run: (action: () => Promise<void>) => Promise<void>] {
  const { fail } = usePortal();
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };
  return [busy, run];
}

/** A select's options, from values (shown as they are) or `[value, text]` pairs. */
export function Options({ items }: { readonly items: readonly (string | readonly [value: string, text: string])[] }) {
  return (
    <>
      {items.map((item) => {
        const [value, text] = typeof item === 'string' ? [item, item] : item;
        return (
          <option key={value} value={value}>
            {text}
          </option>
        );
      })}
    </>
  );
}
