import type { WebhookEventTypeInfo, WebhookSession, WebhooksClient } from '@plant-store/client';
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useState } from 'preact/hooks';

export type Tone = 'info' | 'success' | 'error';

/** What every view of a signed-in page shares. */
export interface PortalContextValue {
  readonly api: WebhooksClient;
  readonly session: WebhookSession;
  /** The token carries `webhooks:write`: write controls are shown. (The service checks the scope anyway.) */
  readonly canWrite: boolean;
  /** The event catalogue, loaded once at sign-in. */
  readonly eventTypes: readonly WebhookEventTypeInfo[];
  /** Tells the reader, and a screen reader through the status region, what an action did. */
  readonly announce: (text: string, tone?: Tone) => void;
  /** Reports a failed call: signs out when the token stopped working, else announces it. */
  readonly fail: (error: unknown) => void;
  /** Opens the delivery log filtered to one endpoint. */
  readonly showDeliveries: (endpointId: string) => void;
}

export const PortalContext = createContext<PortalContextValue | undefined>(undefined);

export function usePortal(): PortalContextValue {
  const value = useContext(PortalContext);
  if (value === undefined) throw new Error('usePortal outside a signed-in page');
  return value;
}

// Every view's section is labelled by its heading, and the page moves focus to that heading when the view changes.
const VIEW_HEADING_ID = 'view-heading';

/** Moves focus to the current view's heading (after the view changed, or a form closed). */
export function focusViewHeading(): void {
  document.getElementById(VIEW_HEADING_ID)?.focus();
}

/** A view: a section labelled by its heading (focusable, not tabbable), the heading's action buttons beside it. */
export function ViewSection({ title, actions, children }: Readonly<{ title: string; actions?: ComponentChildren; children?: ComponentChildren }>) {
  return (
    <section aria-labelledby={VIEW_HEADING_ID}>
      <div class="view-head">
        <h2 id={VIEW_HEADING_ID} tabIndex={-1}>
          {title}
        </h2>
        {actions === undefined ? null : <div class="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** One term and its value (`testid` its `data-testid`) in a `<dl class="facts">`. */
export function Fact({ label, testid, children }: { readonly label: string; readonly testid?: string; readonly children?: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testid}>{children}</dd>
    </div>
  );
}

/** A time in the reader's locale (e.g. "25 Nov 2026, 17:42:05"), machine-readable in `dateTime`. */
export function Time({ at }: { readonly at: Date }) {
  return <time dateTime={at.toISOString()}>{at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}</time>;
}

/** Whether an action is running, and handlers that run one: with `busy` set meanwhile (buttons disabled) and its failure handed to the page. */
export function useAction(): [busy: boolean, action: (work: () => Promise<void>) => () => Promise<void>] {
  const { fail } = usePortal();
  const [busy, setBusy] = useState(false);
  const action = (work: () => Promise<void>) => async () => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };
  return [busy, action];
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

/** A success rate of 0..1 as a percentage; "no attempts" when there were none. */
export function formatRate(rate: number | null, succeeded: number, failed: number): string {
  if (rate === null) return 'no attempts';
  return `${Math.round(rate * 1000) / 10}% (${succeeded} of ${succeeded + failed})`;
}

/** What a verification key is called: an Ed25519 endpoint's receiver holds a public key (`whpk_`), an HMAC one a secret. */
export function verificationKeyLabel(key: string): string {
  return key.startsWith('whpk_') ? 'Public key' : 'Signing secret';
}

/** JSON, indented by `indent` (0: on one line), with bigints written as their exact digits (JSON.stringify refuses them; a Number would round ids past 2^53). */
export function prettyJson(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `\u0000bigint:${item}` : item), indent);
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

/** The value of a `datetime-local` field as a Date (the reader's time zone); undefined when empty or invalid. */
export function dateFromLocalInput(value: string): Date | undefined {
  const date = new Date(value);
  return value === '' || Number.isNaN(date.getTime()) ? undefined : date;
}

/** A Date as a `datetime-local` value in the reader's time zone (minutes precision). */
export function localInputValue(date: Date): string {
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
