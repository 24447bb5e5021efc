import type { WebhookEndpoint } from '@plant-store/client';
import { useState } from 'preact/hooks';
import { dateFromLocalInput, localInputValue, Options, useAction, usePortal } from '../ui/parts.js';

/** Queues again every failed delivery to one endpoint created since a time (after an outage of the receiver). */
export function RecoverForm({ endpoints, onRecovered }: { readonly endpoints: readonly WebhookEndpoint[]; readonly onRecovered: () => void }) {
  const { api, announce } = usePortal();
  const [endpoint, setEndpoint] = useState('');
  // A day back is where most outages are covered; the reader changes it.
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - 24 * 3600_000)));
  const [busy, action] = useAction();
  const chosen = endpoint === '' ? endpoints[0]?.id : endpoint;

  async function submit(event: Event) {
    event.preventDefault();
    const sinceDate = dateFromLocalInput(since);
    if (chosen === undefined || sinceDate === undefined) {
      announce('Choose an endpoint and a time to recover from.', 'error');
      return;
    }
    await action(async () => {
      const count = await api.endpoints.recover(chosen, sinceDate);
      announce(count === 1 ? 'Queued 1 failed delivery again.' : `Queued ${count} failed deliveries again.`, 'success');
      onRecovered();
    })();
  }

  return (
    <form class="card recover" aria-labelledby="recover-heading" onSubmit={submit}>
      <h3 id="recover-heading">Recover failed deliveries</h3>
      <p>Queues again every failed delivery to an endpoint created since the time you choose, for instance after its receiver was down.</p>
      <div class="field">
        <label for="recover-endpoint">Endpoint</label>
        <select id="recover-endpoint" value={chosen ?? ''} onChange={(event) => setEndpoint(event.currentTarget.value)}>
          <Options items={endpoints.map((item) => [item.id, item.url] as const)} />
        </select>
      </div>
      <div class="field">
        <label for="recover-since">Failed deliveries created from</label>
        <input id="recover-since" type="datetime-local" required value={since} onInput={(event) => setSince(event.currentTarget.value)} />
      </div>
      <div class="actions">
        <button type="submit" disabled={busy || chosen === undefined}>
          Recover failed deliveries
        </button>
      </div>
    </form>
  );
}
