import type { WebhookEndpoint, WebhookEventType } from '@plant-store/client';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { EndpointStats } from '../api/portal-api.js';
import { useAnnounce } from '../ui/announcer.js';
import { formatRate, formatTime, verificationKeyLabel } from '../ui/format.js';
import { usePortal } from '../ui/portal-context.js';
import { EndpointForm } from './endpoint-form.js';
import { HealthChart } from './health-chart.js';

interface EndpointCardProps {
  readonly endpoint: WebhookEndpoint;
  /** Undefined while loading or when it could not be read. */
  readonly stats: EndpointStats | undefined;
  readonly onChanged: (endpoint: WebhookEndpoint) => void;
  readonly onDeleted: (id: string) => void;
}

/** One endpoint: what it is, how it is doing, and (with write access) what can be done to it. */
export function EndpointCard({ endpoint, stats, onChanged, onDeleted }: EndpointCardProps) {
  const { api, canWrite, fail, eventTypes, showDeliveries } = usePortal();
  const announce = useAnnounce();
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [testType, setTestType] = useState<WebhookEventType>(endpoint.eventTypes[0] ?? eventTypes[0]?.type ?? 'plant.created');
  const [busy, setBusy] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const headingId = `endpoint-${endpoint.id}`;
  const day = stats?.windows['24h'];

  useLayoutEffect(() => {
    if (confirmingDelete) confirmButton.current?.focus();
  }, [confirmingDelete]);

  /** Runs one action with the card's buttons disabled; failures go to the page. */
  async function act(action: () => Promise<void>) {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  }

  const setStatus = (status: 'enabled' | 'disabled') =>
    act(async () => {
      onChanged(await api.updateEndpoint(endpoint.id, { status }));
      announce(status === 'enabled' ? `Enabled ${endpoint.url}.` : `Disabled ${endpoint.url}: nothing is delivered to it until it is enabled.`, 'success');
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
            onChanged(await api.updateEndpoint(endpoint.id, changes));
            setEditing(false);
            announce(`Saved ${changes.url}.`, 'success');
          }}
        />
      ) : (
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <span class={`badge badge-${endpoint.status}`} data-testid="endpoint-status">
                {endpoint.status === 'enabled' ? 'Enabled' : 'Disabled'}
              </span>
            </dd>
          </div>
          {endpoint.disabledReason === undefined ? null : (
            <div>
              <dt>Disabled because</dt>
              <dd data-testid="disabled-reason">{endpoint.disabledReason}</dd>
            </div>
          )}
          <div>
            <dt>Success rate (24 h)</dt>
            <dd data-testid="success-rate">{day === undefined ? 'unknown' : formatRate(day.successRate, day.succeeded, day.failed)}</dd>
          </div>
          <div>
            <dt>Last attempt</dt>
            <dd data-testid="last-attempt">
              {stats?.lastAttempt === undefined ? (
                'none yet'
              ) : (
                <>
                  <time dateTime={stats.lastAttempt.at.toISOString()}>{formatTime(stats.lastAttempt.at)}</time>
                  {stats.lastAttempt.statusCode === undefined ? ', no answer' : `, status ${stats.lastAttempt.statusCode}`}
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Event types</dt>
            <dd>{endpoint.eventTypes.join(', ')}</dd>
          </div>
          {endpoint.description === undefined ? null : (
            <div>
              <dt>Description</dt>
              <dd>{endpoint.description}</dd>
            </div>
          )}
          {endpoint.rateLimit === undefined ? null : (
            <div>
              <dt>Rate limit</dt>
              <dd>{endpoint.rateLimit} per second</dd>
            </div>
          )}
          {endpoint.headers === undefined ? null : (
            <div>
              <dt>Custom headers</dt>
              {/* Names only: values are often credentials; Edit shows them. */}
              <dd>{Object.keys(endpoint.headers).join(', ')}</dd>
            </div>
          )}
          <div>
            <dt>Id</dt>
            <dd>
              <code>{endpoint.id}</code>
            </dd>
          </div>
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
            {endpoint.status === 'enabled' ? (
              <button type="button" disabled={busy} onClick={() => void setStatus('disabled')}>
                Disable
              </button>
            ) : (
              <button type="button" disabled={busy} onClick={() => void setStatus('enabled')}>
                Enable
              </button>
            )}
            {secret === undefined ? (
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  void act(async () => {
                    const shown = await api.getSecret(endpoint.id);
                    setSecret(shown);
                    announce(`The ${verificationKeyLabel(shown).toLowerCase()} of ${endpoint.url} is shown.`);
                  })
                }
              >
                Reveal secret
              </button>
            ) : (
              <button type="button" onClick={() => setSecret(undefined)}>
                Hide secret
              </button>
            )}
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void act(async () => {
                  setSecret(await api.rotateSecret(endpoint.id));
                  announce(`Rotated the secret of ${endpoint.url}; the new one is shown. The previous one still signs for a while.`, 'success');
                })
              }
            >
              Rotate secret
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => setConfirmingDelete(true)}>
              Delete
            </button>
          </>
        ) : null}
      </div>
      {canWrite && !editing ? (
        <form
          class="inline-form"
          aria-label={`Send a test event to ${endpoint.url}`}
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              const delivery = await api.sendTestEvent(endpoint.id, testType);
              announce(`Queued a test ${testType} event to ${endpoint.url} (${delivery.id}).`, 'success');
            });
          }}
        >
          <label for={`${headingId}-test-type`}>Test event</label>
          <select id={`${headingId}-test-type`} value={testType} onChange={(event) => setTestType(event.currentTarget.value as WebhookEventType)}>
            {eventTypes.map((type) => (
              <option key={type.type} value={type.type}>
                {type.type}
              </option>
            ))}
          </select>
          <button type="submit" disabled={busy || endpoint.status !== 'enabled'}>
            Send test event
          </button>
        </form>
      ) : null}
      {confirmingDelete ? (
        <div class="confirm" role="group" aria-labelledby={`${headingId}-confirm`}>
          <p id={`${headingId}-confirm`}>Delete {endpoint.url}? Its pending deliveries end as failed. This cannot be undone.</p>
          <button
            type="button"
            class="danger"
            ref={confirmButton}
            disabled={busy}
            onClick={() =>
              void act(async () => {
                await api.deleteEndpoint(endpoint.id);
                onDeleted(endpoint.id);
                announce(`Deleted ${endpoint.url}.`, 'success');
              })
            }
          >
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
