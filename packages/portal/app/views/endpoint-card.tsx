import type { WebhookEndpoint, WebhookEndpointStats, WebhookEventType } from '@plant-store/client';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { DESTINATION_LABELS } from '../ui/destination-kind.js';
import { Fact, formatRate, Options, prettyJson, Time, useAction, usePortal, verificationKeyLabel } from '../ui/parts.js';
import { droppedText, EnableChoice } from './enable-choice.js';
import { EndpointForm } from './endpoint-form.js';
import { HealthChart } from './health-chart.js';

interface EndpointCardProps {
  readonly endpoint: WebhookEndpoint;
  /** Undefined while loading or when it could not be read. */
  readonly stats: WebhookEndpointStats | undefined;
  readonly onChanged: (endpoint: WebhookEndpoint) => void;
  readonly onDeleted: (id: string) => void;
}

/** One endpoint: what it is, how it is doing, and (with write access) what can be done to it. */
export function EndpointCard({ endpoint, stats, onChanged, onDeleted }: EndpointCardProps) {
  const { api, canWrite, eventTypes, announce, showDeliveries } = usePortal();
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  // Enabling a disabled endpoint first asks what to do with the messages kept for it.
  const [choosingEnable, setChoosingEnable] = useState(false);
  const [testType, setTestType] = useState<WebhookEventType>(endpoint.eventTypes[0] ?? eventTypes[0]?.type ?? 'plant.created');
  const [busy, act] = useAction();
  const confirmButton = useRef<HTMLButtonElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const statusButton = useRef<HTMLButtonElement>(null);
  const headingId = `endpoint-${endpoint.id}`;
  const day = stats?.windows['24h'];

  useLayoutEffect(() => {
    if (confirmingDelete) confirmButton.current?.focus();
  }, [confirmingDelete]);

  const disable = act(async () => {
    onChanged(await api.endpoints.update(endpoint.id, { status: 'disabled' }));
    announce(`Disabled ${endpoint.url}: nothing is delivered to it until it is enabled; its messages are kept until then.`, 'success');
  });
  const closeEnableChoice = () => {
    setChoosingEnable(false);
    queueMicrotask(() => statusButton.current?.focus());
  };
  const revealSecret = act(async () => {
    const shown = await api.endpoints.getSecret(endpoint.id);
    setSecret(shown);
    announce(`The ${verificationKeyLabel(shown).toLowerCase()} of ${endpoint.url} is shown.`);
  });
  const rotateSecret = act(async () => {
    setSecret(await api.endpoints.rotateSecret(endpoint.id));
    announce(`Rotated the secret of ${endpoint.url}; the new one is shown. The previous one still signs for a while.`, 'success');
  });
  const remove = act(async () => {
    await api.endpoints.delete(endpoint.id);
    onDeleted(endpoint.id);
    announce(`Deleted ${endpoint.url}.`, 'success');
  });

  return (
    <article class="card endpoint" aria-labelledby={headingId} data-endpoint-id={endpoint.id}>
      <h3 id={headingId} class="url">
        {endpoint.url}
      </h3>
      {editing ? (
        <EndpointForm
          endpoint={endpoint}
          onCancel={() => {
            setEditing(false);
            queueMicrotask(() => editButton.current?.focus());
          }}
          onSave={async (changes) => {
            onChanged(await api.endpoints.update(endpoint.id, changes));
            setEditing(false);
            announce(`Saved ${changes.url}.`, 'success');
          }}
        />
      ) : (
        <dl class="facts">
          <Fact label="Status">
            <span class={`badge badge-${endpoint.status}`} data-testid="endpoint-status">
              {endpoint.status === 'enabled' ? 'Enabled' : 'Disabled'}
            </span>
          </Fact>
          {endpoint.disabledReason === undefined ? null : (
            <Fact label="Disabled because" testid="disabled-reason">
              {endpoint.disabledReason}
            </Fact>
          )}
          {endpoint.parkedDropped === undefined ? null : (
            <Fact label="Dropped while disabled" testid="parked-dropped">
              {droppedText(endpoint.parkedDropped)}, the oldest first: more were kept than the service allows
            </Fact>
          )}
          <Fact label="Success rate (24 h)" testid="success-rate">
            {day === undefined ? 'unknown' : formatRate(day.successRate, day.succeeded, day.failed)}
          </Fact>
          <Fact label="Last attempt" testid="last-attempt">
            {stats?.lastAttempt === undefined ? (
              'none yet'
            ) : (
              <>
                <Time at={stats.lastAttempt.at} />
                {stats.lastAttempt.statusCode === undefined ? ', no answer' : `, status ${stats.lastAttempt.statusCode}`}
              </>
            )}
          </Fact>
          <Fact label="Destination" testid="endpoint-kind">
            {DESTINATION_LABELS[endpoint.kind] ?? endpoint.kind}
          </Fact>
          <Fact label="Event types">{endpoint.eventTypes.join(', ')}</Fact>
          {endpoint.description === undefined ? null : <Fact label="Description">{endpoint.description}</Fact>}
          {endpoint.rateLimit === undefined ? null : <Fact label="Rate limit">{endpoint.rateLimit} per second</Fact>}
          {endpoint.filter === undefined ? null : (
            <Fact label="Filter" testid="endpoint-filter">
              <code>{prettyJson(endpoint.filter, 0)}</code>
            </Fact>
          )}
          {endpoint.ordering === 'plant' ? (
            <Fact label="Order" testid="endpoint-ordering">
              per plant
            </Fact>
          ) : null}
          {/* Names only: values are often credentials; Edit shows them. */}
          {endpoint.headers === undefined ? null : <Fact label="Custom headers">{Object.keys(endpoint.headers).join(', ')}</Fact>}
          <Fact label="Id">
            <code>{endpoint.id}</code>
          </Fact>
        </dl>
      )}
      {editing || stats === undefined ? null : <HealthChart hours={stats.hourly} subject={endpoint.url} />}
      {secret === undefined ? null : (
        <p class="secret">
          {verificationKeyLabel(secret)}: <code data-testid="secret">{secret}</code>
        </p>
      )}
      <div class="actions" role="group" aria-label={`Actions for ${endpoint.url}`}>
        <button type="button" onClick={() => showDeliveries(endpoint.id)}>
          Show its deliveries
        </button>
        {canWrite && !editing ? (
          <>
            <button type="button" ref={editButton} disabled={busy} onClick={() => setEditing(true)}>
              Edit
            </button>
            <button
              type="button"
              ref={statusButton}
              disabled={busy || choosingEnable}
              onClick={endpoint.status === 'enabled' ? disable : () => setChoosingEnable(true)}
            >
              {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
            </button>
            {secret === undefined ? (
              <button type="button" disabled={busy} onClick={revealSecret}>
                Reveal secret
              </button>
            ) : (
              <button type="button" onClick={() => setSecret(undefined)}>
                Hide secret
              </button>
            )}
            <button type="button" disabled={busy} onClick={rotateSecret}>
              Rotate secret
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => setConfirmingDelete(true)}>
              Delete
            </button>
          </>
        ) : null}
      </div>
      {canWrite && choosingEnable && endpoint.status === 'disabled' ? (
        <EnableChoice
          endpoint={endpoint}
          onCancel={closeEnableChoice}
          onEnabled={(enabled) => {
            onChanged(enabled);
            closeEnableChoice();
          }}
        />
      ) : null}
      {canWrite && !editing ? (
        <form
          class="inline-form"
          aria-label={`Send a test event to ${endpoint.url}`}
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              const delivery = await api.endpoints.sendTest(endpoint.id, testType);
              announce(`Queued a test ${testType} event to ${endpoint.url} (${delivery.id}).`, 'success');
            })();
          }}
        >
          <label for={`${headingId}-test-type`}>Test event</label>
          <select id={`${headingId}-test-type`} value={testType} onChange={(event) => setTestType(event.currentTarget.value as WebhookEventType)}>
            <Options items={eventTypes.map((type) => type.type)} />
          </select>
          <button type="submit" disabled={busy || endpoint.status !== 'enabled'}>
            Send test event
          </button>
        </form>
      ) : null}
      {confirmingDelete ? (
        <div class="confirm" role="group" aria-labelledby={`${headingId}-confirm`}>
          <p id={`${headingId}-confirm`}>Delete {endpoint.url}? Its pending and kept deliveries end as failed. This cannot be undone.</p>
          <button type="button" class="danger" ref={confirmButton} disabled={busy} onClick={remove}>
            Delete endpoint
          </button>
          <button type="button" onClick={() => setConfirmingDelete(false)}>
            Keep it
          </button>
        </div>
      ) : null}
    </article>
  );
}
