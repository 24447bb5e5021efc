import type { WebhookEndpoint, WebhookEndpointUpdate } from '@plant-store/client';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { dateFromLocalInput, localInputValue, useAction, usePortal } from '../ui/parts.js';

type Choice = 'replay' | 'since' | 'discard';

interface EnableChoiceProps {
  readonly endpoint: WebhookEndpoint;
  readonly onEnabled: (endpoint: WebhookEndpoint) => void;
  readonly onCancel: () => void;
}

/**
 * Enabling a disabled endpoint: the service kept (parked) its messages meanwhile, and the reader chooses whether they are
 * sent now, only the later ones, or none (a receiver that was rebuilt may not want a backlog).
 */
export function EnableChoice({ endpoint, onEnabled, onCancel }: EnableChoiceProps) {
  const { api, announce } = usePortal();
  const [choice, setChoice] = useState<Choice>('replay');
  // Its last change is most often its disabling: from there on is everything it missed.
  const [since, setSince] = useState(() => localInputValue(endpoint.updatedAt));
  const [busy, action] = useAction();
  const confirmButton = useRef<HTMLButtonElement>(null);
  const prefix = `enable-${endpoint.id}`;

  useLayoutEffect(() => confirmButton.current?.focus(), []);

  async function submit(event: Event) {
    event.preventDefault();
    const sinceDate = dateFromLocalInput(since);
    if (choice === 'since' && sinceDate === undefined) {
      announce('Choose the time from which kept messages are replayed.', 'error');
      return;
    }
    const changes: WebhookEndpointUpdate =
      choice === 'discard'
        ? { status: 'enabled', parked: 'discard' }
        : choice === 'since'
          ? { status: 'enabled', parked: 'replay', parkedSince: sinceDate }
          : { status: 'enabled', parked: 'replay' };
    await action(async () => {
      onEnabled(await api.endpoints.update(endpoint.id, changes));
      announce(enabledText(endpoint.url, choice, sinceDate), 'success');
    })();
  }

  return (
    <form class="confirm enable-choice" aria-label={`Enable ${endpoint.url}`} onSubmit={submit}>
      <fieldset class="field">
        <legend>Messages kept while it was disabled</legend>
        <ChoiceRadio group={prefix} value="replay" chosen={choice} onChoose={setChoice} label="Send them all, in order" />
        <ChoiceRadio group={prefix} value="since" chosen={choice} onChoose={setChoice} label="Send those created since a time; discard the older ones" />
        {choice === 'since' ? (
          <div class="field">
            <label for={`${prefix}-since-time`}>Kept messages created from</label>
            <input id={`${prefix}-since-time`} type="datetime-local" required value={since} onInput={(event) => setSince(event.currentTarget.value)} />
          </div>
        ) : null}
        <ChoiceRadio group={prefix} value="discard" chosen={choice} onChoose={setChoice} label="Discard them all" />
        <p class="help">
          Discarded messages end as failed: Recover failed deliveries (in the delivery log) can still send them.
          {endpoint.parkedDropped === undefined ? null : (
            <> {droppedText(endpoint.parkedDropped)} were dropped, the oldest first, as more were kept than the service allows.</>
          )}
        </p>
      </fieldset>
      <button type="submit" class="primary" ref={confirmButton} disabled={busy}>
        Enable endpoint
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** One choice of the group: a radio (id `<group>-<value>`) and its label. */
function ChoiceRadio({
  group,
  value,
  chosen,
  onChoose,
  label,
}: Readonly<{ group: string; value: Choice; chosen: Choice; onChoose: (value: Choice) => void; label: string }>) {
  const id = `${group}-${value}`;
  return (
    <div class="check">
      <input id={id} type="radio" name={group} checked={chosen === value} onChange={() => onChoose(value)} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** "1 message", "3 messages". */
export function droppedText(count: number): string {
  return count === 1 ? '1 message' : `${count} messages`;
}

function enabledText(url: string, choice: Choice, since: Date | undefined): string {
  if (choice === 'discard') return `Enabled ${url}: the messages kept while it was disabled were discarded.`;
  if (choice === 'since') {
    return `Enabled ${url}: the messages kept since ${since!.toLocaleString()} are being sent, in order; older ones were discarded.`;
  }
  return `Enabled ${url}: the messages kept while it was disabled are being sent, in order.`;
}
