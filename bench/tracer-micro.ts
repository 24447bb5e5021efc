import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';

import { LightTracerProvider } from '../packages/server/src/tracing/tracer/light-tracer-provider.js';
import { tracerSettings } from '../packages/server/src/tracing/tracer/tracer-settings.js';

let bytes = 0, batches = 0;
const provider = new LightTracerProvider({ attributes: { 'service.name': 'x' } } as never, tracerSettings({}), { send(b, done) { bytes += b.body.length; batches++; done(); }, shutdown: async () => {} });
const http = provider.getTracer('@plant-store/http-node');
const core = provider.getTracer('@plant-store/core');
const opAttrs = { 'db.operation.name': 'listJson', 'db.collection.name': 'plants', 'db.system.name': 'sqlite' };
function request() {
  const span = http.startSpan('GET', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
  span.setAttribute('http.request.method', 'GET');
  span.setAttribute('url.scheme', 'http');
  span.setAttribute('network.protocol.version', '1.1');
  const ctx = trace.setSpan(ROOT_CONTEXT, span);
  const child = core.startSpan('listJson plants', { kind: SpanKind.CLIENT, attributes: opAttrs }, ctx);
  child.end();
  span.setAttribute('http.route', '/plants');
  span.updateName('GET /plants');
  span.setAttribute('http.response.status_code', 200);
  span.end();
}
for (let i = 0; i < 200_000; i++) request();
const n = 1_000_000;
const t = process.hrtime.bigint();
for (let i = 0; i < n; i++) request();
console.log(Number(process.hrtime.bigint() - t) / n, 'ns per request', batches, bytes / batches / 512);
