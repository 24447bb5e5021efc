import type { HttpMetrics } from '../metrics/http-metrics.js';
import type { Exchange } from './route-context.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

// No credentials: Prometheus scrapes without any, and no label holds a tenant, token, id or URL.
export async function scrapeMetrics(metrics: HttpMetrics, exchange: Exchange): Promise<void> {
  const body = await metrics.scrape();
  exchange.res.writeHead(200, [
    'content-type',
    METRICS_CONTENT_TYPE,
    'content-length',
    String(Buffer.byteLength(body)),
    'cache-control',
    'no-store',
    'x-request-id',
    exchange.requestId,
  ]);
  exchange.res.end(body);
}
