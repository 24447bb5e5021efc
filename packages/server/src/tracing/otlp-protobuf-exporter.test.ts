import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { otlpProtobufExport } from './otlp-protobuf-exporter.js';

interface Received {
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

async function collector() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('otlpProtobufExport', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('sends an encoded batch where the OTEL_EXPORTER_OTLP_* variables say, with their headers and compression', async () => {
    const endpoint = await collector();
    try {
      vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${endpoint.url}/custom/traces`);
      vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'x-api-key=secret-value');
      vi.stubEnv('OTEL_EXPORTER_OTLP_COMPRESSION', 'gzip');
      const exporter = otlpProtobufExport();
      const body = Buffer.from('an encoded request, sent as it is');
      await new Promise<void>((resolve) => exporter.send({ body, spanCount: 3 }, resolve));
      await exporter.shutdown();
      expect(endpoint.received).toHaveLength(1);
      const [request] = endpoint.received;
      expect(request!.url).toBe('/custom/traces');
      expect(request!.headers['content-type']).toBe('application/x-protobuf');
      expect(request!.headers['x-api-key']).toBe('secret-value');
      expect(request!.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(request!.body)).toEqual(body);
    } finally {
      await endpoint.close();
    }
  });
});
