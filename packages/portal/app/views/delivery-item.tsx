import type { WebhookDelivery } from '@plant-store/client';
import { Fact, prettyJson, Time, useAction, usePortal } from '../ui/parts.js';

interface DeliveryItemProps {
  readonly delivery: WebhookDelivery;
  /** The endpoint's URL, when it is still there. */
  readonly endpointUrl: string | undefined;
  readonly onResent: () => void;
}

/** One delivery: what was sent where, its state, each attempt and (with write access) resending it. */
export function DeliveryItem({ delivery, endpointUrl, onResent }: DeliveryItemProps) {
  const { api, canWrite, announce } = usePortal();
  const [busy, action] = useAction();
  const headingId = `delivery-${delivery.id}`;

  const resend = action(async () => {
    await api.deliveries.resend(delivery.id);
    announce(`Queued ${delivery.id} again.`, 'success');
    onResent();
  });

  return (
    <article class="card delivery" aria-labelledby={headingId} data-delivery-id={delivery.id}>
      <h3 id={headingId}>
        <code>{delivery.eventType}</code> to {endpointUrl ?? delivery.endpointId}
        {delivery.test === true ? <span class="badge badge-test">test</span> : null}
      </h3>
      <dl class="facts">
        <Fact label="Status">
          <span class={`badge badge-${delivery.status}`} data-testid="delivery-status">
            {delivery.status}
          </span>
        </Fact>
        <Fact label="Created">
          <Time at={delivery.createdAt} />
        </Fact>
        {delivery.nextAttemptAt === undefined ? null : (
          <Fact label="Next attempt">
            <Time at={delivery.nextAttemptAt} />
          </Fact>
        )}
        {delivery.waitingBehind === undefined ? null : (
          <Fact label="Next attempt" testid="waiting-behind">
            waiting behind <code>{delivery.waitingBehind}</code>
          </Fact>
        )}
        <Fact label="Message id">
          <code>{delivery.id}</code>
        </Fact>
      </dl>
      <details>
        <summary>Payload</summary>
        <pre tabIndex={0} data-testid="payload">
          {prettyJson(delivery.payload)}
        </pre>
      </details>
      {delivery.status === 'parked' ? (
        <p data-testid="parked-note">Kept while its endpoint is disabled: enabling the endpoint sends it, or discards it if so chosen.</p>
      ) : null}
      {delivery.attempts.length === 0 ? (
        delivery.status === 'parked' ? null : delivery.waitingBehind === undefined ? (
          <p>No attempt yet.</p>
        ) : (
          <p>
            Waiting behind <code>{delivery.waitingBehind}</code>, an earlier message about the same plant: no attempt before that one ends.
          </p>
        )
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
                    <Time at={attempt.at} />
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
          <button type="button" disabled={busy} onClick={resend} aria-describedby={headingId}>
            Resend
          </button>
        </div>
      ) : null}
    </article>
  );
}
