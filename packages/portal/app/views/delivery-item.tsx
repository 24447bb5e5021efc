import { useState } from 'preact/hooks';
import type { PortalDelivery } from '../api/portal-api.js';
import { useAnnounce } from '../ui/announcer.js';
import { formatTime, prettyJson } from '../ui/format.js';
import { usePortal } from '../ui/portal-context.js';

interface DeliveryItemProps {
  readonly delivery: PortalDelivery;
  /** The endpoint's URL, when it is still there. */
  readonly endpointUrl: string | undefined;
  readonly onResent: () => void;
}

/** One delivery: what was sent where, its state, each attempt and (with write access) resending it. */
export function DeliveryItem({ delivery, endpointUrl, onResent }: DeliveryItemProps) {
  const { api, canWrite, fail } = usePortal();
  const announce = useAnnounce();
  const [busy, setBusy] = useState(false);
  const headingId = `delivery-${delivery.id}`;

  async function resend() {
    setBusy(true);
    try {
      await api.resend(delivery.id);
      announce(`Queued ${delivery.id} again.`, 'success');
      onResent();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <article class="card delivery" aria-labelledby={headingId} data-delivery-id={delivery.id}>
      <h3 id={headingId}>
        <code>{delivery.eventType}</code> to {endpointUrl ?? delivery.endpointId}
        {delivery.test === true ? <span class="badge badge-test">test</span> : null}
      </h3>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <span class={`badge badge-${delivery.status}`} data-testid="delivery-status">
              {delivery.status}
            </span>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={delivery.createdAt.toISOString()}>{formatTime(delivery.createdAt)}</time>
          </dd>
        </div>
        {delivery.nextAttemptAt === undefined ? null : (
          <div>
            <dt>Next attempt</dt>
            <dd>
              <time dateTime={delivery.nextAttemptAt.toISOString()}>{formatTime(delivery.nextAttemptAt)}</time>
            </dd>
          </div>
        )}
        <div>
          <dt>Message id</dt>
          <dd>
            <code>{delivery.id}</code>
          </dd>
        </div>
      </dl>
      <details>
        <summary>Payload</summary>
        <pre tabIndex={0} data-testid="payload">
          {prettyJson(delivery.payload)}
        </pre>
      </details>
      {delivery.attempts.length === 0 ? (
        <p>No attempt yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="attempts">
            <caption>Attempts of {delivery.id}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Duration</th>
                <th scope="col">Status code</th>
                <th scope="col">Error</th>
                <th scope="col">Answer (first 1 KiB)</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt, index) => (
                <tr key={index}>
                  <td>
                    <time dateTime={attempt.at.toISOString()}>{formatTime(attempt.at)}</time>
                  </td>
                  <td>{Math.round(attempt.durationMs)} ms</td>
                  <td data-testid="attempt-status">{attempt.statusCode ?? '—'}</td>
                  <td>{attempt.error ?? '—'}</td>
                  <td>
                    {attempt.response === undefined || attempt.response === '' ? (
                      '—'
                    ) : (
                      <pre class="answer" data-testid="attempt-response">
                        {attempt.response}
                      </pre>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite ? (
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => void resend()} aria-describedby={headingId}>
            Resend
          </button>
        </div>
      ) : null}
    </article>
  );
}
