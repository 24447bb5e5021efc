import type { WebhookHourStats } from '@plant-store/client';

const WIDTH = 240;
const HEIGHT = 48;

/**
 * Attempts per hour over the last day as stacked SVG bars, coloured by the stylesheet (the CSP allows no CDN, inline
 * script or style); screen readers read the same numbers from a visually hidden table, captioned with `subject`.
 */
export function HealthChart({ hours, subject }: { readonly hours: readonly WebhookHourStats[]; readonly subject: string }) {
  const slot = WIDTH / Math.max(1, hours.length);
  const peak = Math.max(1, ...hours.map((hour) => hour.succeeded + hour.failed));
  const height = (count: number) => (count / peak) * HEIGHT;
  const failing = hours.reduce((sum, hour) => sum + hour.failed, 0);
  return (
    <figure class="health-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" focusable="false" data-testid="health-chart">
        <line class="baseline" x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} />
        {hours.map((hour, index) => {
          const succeeded = height(hour.succeeded);
          const failed = height(hour.failed);
          const x = index * slot + 0.5;
          return (
            <g key={hour.start.getTime()}>
              <rect class="bar-succeeded" x={x} y={HEIGHT - succeeded} width={slot - 1} height={succeeded} />
              <rect class="bar-failed" x={x} y={HEIGHT - succeeded - failed} width={slot - 1} height={failed} />
            </g>
          );
        })}
      </svg>
      <figcaption>
        Attempts per hour, last 24 h: <span class="key key-succeeded">succeeded</span> <span class="key key-failed">failed</span>
        {failing === 0 ? null : ` (${failing} failed)`}
      </figcaption>
      <table class="visually-hidden">
        <caption>Attempts per hour to {subject}, last 24 hours</caption>
        <thead>
          <tr>
            <th scope="col">Hour</th>
            <th scope="col">Succeeded</th>
            <th scope="col">Failed</th>
          </tr>
        </thead>
        <tbody>
          {hours.map((hour) => (
            <tr key={hour.start.getTime()}>
              <th scope="row">
                <time dateTime={hour.start.toISOString()}>{hour.start.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}</time>
              </th>
              <td>{hour.succeeded}</td>
              <td>{hour.failed}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
