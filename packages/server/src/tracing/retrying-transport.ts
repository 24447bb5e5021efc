import { diag } from '@opentelemetry/api';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';

// The SDK's OTLP retry policy (its own is not exported), so that both transports retry alike.
const MAX_RETRIES = 5;
const INITIAL_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5000;
const BACKOFF_MULTIPLIER = 1.5;
const JITTER = 0.2;

/**
 * `transport`, with an export that failed in a way worth retrying (a
 * network error, 429, 502, 503 or 504) sent again up to five times, after
 * an exponential back-off with jitter or the collector's `Retry-After`, as
 * long as the retry still starts within the export's timeout.
 */
export function retryingTransport(transport: IExporterTransport, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))): IExporterTransport {
  return {
    async send(data, timeoutMillis) {
      const deadline = Date.now() + timeoutMillis;
      let result: ExportResponse = await transport.send(data, timeoutMillis);
      let backoff = INITIAL_BACKOFF_MS;
      for (let retries = 0; result.status === 'retryable' && retries < MAX_RETRIES; retries++) {
        const jittered = Math.max(Math.min(backoff * (1 + (Math.random() * 2 - 1) * JITTER), MAX_BACKOFF_MS), 0);
        backoff *= BACKOFF_MULTIPLIER;
        const wait = result.retryInMillis ?? jittered;
        const remaining = deadline - Date.now();
        if (wait > remaining) {
          diag.info(`OTLP export retry in ${Math.round(wait)} ms would pass the export's timeout (${Math.round(remaining)} ms left): not retried`);
          return result;
        }
        await sleep(wait);
        result = await transport.send(data, Math.max(deadline - Date.now(), 1));
      }
      return result;
    },
    shutdown: () => transport.shutdown(),
  };
}
