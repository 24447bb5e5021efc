import type { ListWebhookDeliveriesQuery, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint, WebhookEventType } from '@plant-store/client';
import { useEffect, useState } from 'preact/hooks';
import { allEndpoints } from '../api/portal-api.js';
import { dateFromLocalInput, Options, usePortal, ViewSection } from '../ui/parts.js';
import { DeliveryItem } from './delivery-item.js';
import { RecoverForm } from './recover-form.js';

const PAGE_SIZE = 20;
const STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed', 'parked'];

/** The delivery log, newest first (filtered to `initialEndpoint` when given): filters, each delivery's attempts, resend; recovering failed ones. */
export function DeliveriesView({ initialEndpoint }: { readonly initialEndpoint: string | undefined }) {
  const { api, canWrite, eventTypes, announce, fail } = usePortal();
  const [endpoints, setEndpoints] = useState<readonly WebhookEndpoint[]>([]);
  // The form's fields, as typed; applied on submit.
  const [endpoint, setEndpoint] = useState(initialEndpoint ?? '');
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | undefined>(undefined);
  const [after, setAfter] = useState<string | undefined>(undefined);
  const [filter, setFilter] = useState<ListWebhookDeliveriesQuery>(initialEndpoint === undefined ? {} : { endpoint: initialEndpoint });

  async function load(applied: ListWebhookDeliveriesQuery, from?: string) {
    const page = await api.deliveries.listPage({ ...applied, limit: PAGE_SIZE, after: from }).catch(fail);
    if (page === undefined) return undefined;
    setDeliveries((previous) => (from === undefined ? page.deliveries : [...(previous ?? []), ...page.deliveries]));
    setAfter(page.next?.after);
    return page;
  }

  useEffect(() => {
    void load(filter);
    allEndpoints(api).then(setEndpoints, fail);
  }, []);

  function apply(event: Event) {
    event.preventDefault();
    // An empty field is no filter.
    const next: ListWebhookDeliveriesQuery = {
      endpoint: endpoint || undefined,
      status: (status || undefined) as WebhookDeliveryStatus | undefined,
      eventType: (eventType || undefined) as WebhookEventType | undefined,
      since: dateFromLocalInput(since),
      until: dateFromLocalInput(until),
    };
    setFilter(next);
    setDeliveries(undefined);
    void load(next).then((page) => {
      if (page === undefined) return;
      const count = page.deliveries.length;
      const more = page.next?.after === undefined ? '' : ', older ones on request';
      announce(count === 0 ? 'No deliveries match.' : `Showing ${count === 1 ? '1 delivery' : `${count} deliveries`}${more}.`);
    });
  }

  const endpointUrl = (id: string) => endpoints.find((item) => item.id === id)?.url;

  return (
    <ViewSection title="Delivery log">
      <form class="card filters" aria-label="Filter deliveries" onSubmit={apply}>
        <div class="field">
          <label for="filter-endpoint">Endpoint</label>
          <select id="filter-endpoint" value={endpoint} onChange={(event) => setEndpoint(event.currentTarget.value)}>
            <option value="">All endpoints</option>
            <Options items={endpoints.map((item) => [item.id, item.url] as const)} />
            {endpoint !== '' && endpoints.every((item) => item.id !== endpoint) ? <option value={endpoint}>{endpoint}</option> : null}
          </select>
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(event) => setStatus(event.currentTarget.value)}>
            <option value="">Any status</option>
            <Options items={STATUSES} />
          </select>
        </div>
        <div class="field">
          <label for="filter-event-type">Event type</label>
          <select id="filter-event-type" value={eventType} onChange={(event) => setEventType(event.currentTarget.value)}>
            <option value="">Any event type</option>
            <Options items={eventTypes.map((item) => item.type)} />
          </select>
        </div>
        <div class="field">
          <label for="filter-since">Created from</label>
          <input id="filter-since" type="datetime-local" value={since} onInput={(event) => setSince(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="filter-until">Created before</label>
          <input id="filter-until" type="datetime-local" value={until} onInput={(event) => setUntil(event.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Show deliveries
          </button>
        </div>
      </form>
      {deliveries === undefined ? (
        <p aria-busy="true">Loading deliveries…</p>
      ) : deliveries.length === 0 ? (
        <p>No deliveries match.</p>
      ) : (
        <ol class="list deliveries" aria-label="Deliveries, newest first">
          {deliveries.map((delivery) => (
            <li key={delivery.id}>
              <DeliveryItem delivery={delivery} endpointUrl={endpointUrl(delivery.endpointId)} onResent={() => void load(filter)} />
            </li>
          ))}
        </ol>
      )}
      {after === undefined ? null : (
        <button type="button" onClick={() => void load(filter, after)}>
          Show older deliveries
        </button>
      )}
      {canWrite ? <RecoverForm endpoints={endpoints} onRecovered={() => void load(filter)} /> : null}
    </ViewSection>
  );
}
