// Micro-benchmark of the service's tracer: CPU time per traced request in
// process, the spans a list request makes (a SERVER span with its HTTP
// attributes, a CLIENT span for the storage call), started, ended, encoded
// into their batch and handed to an exporter that drops them. Median of
// several rounds of user + system time, so a busy machine disturbs it less
// than wall time. No HTTP, no export over the network: what the tracer
// itself costs, for comparing changes to it.
//
//   node --import tsx bench/tracer-micro.ts [rounds]
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { LightTracerProvider } from '../packages/server/src/tracing/tracer/light-tracer-provider.js';
import { tracerSettings } from '../packages/server/src/tracing/tracer/tracer-settings.js';

const rounds = Number(process.argv[2] ?? 7);
const REQUESTS = 200_000;

let exportedBytes = 0;
const resource = { attributes: { 'service.name': 'plant-store-bench' } } as never;
const provider = new LightTracerProvider(resource, tracerSettings({}), {
  send(batch, done) {
    exportedBytes += batch.body.length;
    done();
  },
  shutdown: async () => undefined,
});
const http = provider.getTracer('@plant-store/http-node');
const core = provider.getTracer('@plant-store/core');
// As the service starts them: one frozen options object per method for the SERVER span (its method, scheme and
// protocol version, which the tracer takes once for all its spans) and per storage member for the CLIENT span.
const serverOptions = Object.freeze({
  kind: SpanKind.SERVER,
  attributes: Object.freeze({ 'http.request.method': 'GET', 'url.scheme': 'http', 'network.protocol.version': '1.1' }),
});
const storageOptions = Object.freeze({
  kind: SpanKind.CLIENT,
  attributes: Object.freeze({ 'db.operation.name': 'listJson', 'db.collection.name': 'plants', 'db.system.name': 'sqlite' }),
});

function tracedRequest(): void {
  const server = http.startSpan('GET', serverOptions, ROOT_CONTEXT);
  const storage = core.startSpan('listJson plants', storageOptions, trace.setSpan(ROOT_CONTEXT, server));
  storage.end();
  server.setAttribute('http.route', '/plants');
  server.updateName('GET /plants');
  server.setAttribute('http.response.status_code', 200);
  server.end();
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const perRequest: number[] = [];
for (let round = 0; round <= rounds; round++) {
  const start = cpuMicros();
  for (let index = 0; index < REQUESTS; index++) tracedRequest();
  // The first round warms the JIT up and is not counted.
  if (round > 0) perRequest.push(((cpuMicros() - start) * 1000) / REQUESTS);
}
await provider.shutdown();
perRequest.sort((a, b) => a - b);
const median = perRequest[Math.floor(perRequest.length / 2)]!;
console.log(`tracer: ${median.toFixed(0)} ns of CPU per traced request (two spans), median of ${rounds} rounds of ${REQUESTS.toLocaleString('en-US')}`);
console.log(`(${(exportedBytes / ((rounds + 1) * REQUESTS * 2)).toFixed(0)} bytes of OTLP protobuf per span)`);
