import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectProxy } from '../../../test/support/connect-proxy.js';
import { startOtlpSink } from '../../../test/support/otlp-sink.js';
import { startReceiver } from '../../../test/support/webhook-receiver.js';
import { ConfigurationError } from '@plant-store/core';
import { loadConfig } from './config/load-config.js';
import { ListenError, serve, type ServeHandle } from './serve.js';

function buffer() {
  let text = '';
  return { sink: { write: (chunk: string) => (text += chunk) }, text: () => text };
}

const handles: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close()));
  vi.unstubAllEnvs();
});

describe('serve (in-process)', () => {
  it('listens, answers, and closes idempotently', async () => {
    const stdout = buffer();
    const stderr = buffer();
    const config = loadConfig(['--port=0', '--storage=memory', '--tokens=in-process=t1'], {});
    const handle = await serve(config, { stdout: stdout.sink, stderr: stderr.sink, env: {} });
    handles.push(handle);

    expect(stdout.text()).toBe(`plant-store listening on ${handle.url} (storage: memory)\n`);
    expect(stderr.text()).toBe('');
    const response = await fetch(`${handle.url}/plants`, { headers: { authorization: 'Bearer in-process' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('[]');

    await Promise.all([handle.close(), handle.close()]);
    // Already written when close() resolves.
    expect(stdout.text()).toContain('"msg":"stopped"');
    await expect(fetch(`${handle.url}/healthz`)).rejects.toThrow();
  });

  it('gives the store the configured webhook retention (the default of its prune; off keeps everything)', async () => {
    const start = async (retention: string) => {
      const handle = await serve(loadConfig(['--port=0', '--storage=memory', '--tokens=a=b', `--webhook-retention=${retention}`], {}), {
        stdout: buffer().sink,
        stderr: buffer().sink,
        env: {},
      });
      handles.push(handle);
      return handle;
    };
    await expect((await start('20s')).store.allTenants.webhooks.prune()).resolves.toBe(0);
    await expect((await start('off')).store.allTenants.webhooks.prune()).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it('gives the store the configured cap on endpoints per tenant (one more is a 422 naming the limit)', async () => {
    const config = loadConfig(['--port=0', '--storage=memory', '--tokens=capped=acme', '--webhook-max-endpoints=1'], {});
    const handle = await serve(config, { stdout: buffer().sink, stderr: buffer().sink, env: {} });
    handles.push(handle);
    const create = () =>
      fetch(`${handle.url}/webhooks/endpoints`, {
        method: 'POST',
        headers: { authorization: 'Bearer capped', 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://hooks.example/plants' }),
      });
    expect((await create()).status).toBe(201);
    const refused = await create();
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: 422, message: expect.stringContaining('1') });
  });

  it('sends webhook attempts through the configured proxy', async () => {
    const [proxy, receiver] = await Promise.all([connectProxy(), startReceiver()]);
    try {
      const subscriptions = JSON.stringify([{ url: receiver.url('/hook'), secret: receiver.secret }]);
      const config = loadConfig(['--port=0', '--storage=memory', '--tokens=a=b', `--webhooks=${subscriptions}`, `--webhook-proxy=${proxy.url}`], {});
      const handle = await serve(config, { stdout: buffer().sink, stderr: buffer().sink, env: {} });
      handles.push(handle);
      const created = await fetch(`${handle.url}/plants`, {
        method: 'POST',
        headers: { authorization: 'Bearer a', 'content-type': 'application/json' },
        body: '{"id":1,"name":"Fern"}',
      });
      expect(created.status).toBe(200);
      await receiver.waitFor(1);
      expect(proxy.connects).toEqual([`127.0.0.1:${receiver.port}`]);
    } finally {
      await Promise.all([proxy.close(), receiver.close()]);
    }
  });

  it('creates a development token for tenant "default" outside production', async () => {
    const stderr = buffer();
    const handle = await serve(loadConfig(['--port=0', '--storage=memory'], {}), {
      stdout: buffer().sink,
      stderr: stderr.sink,
      env: { NODE_ENV: 'development' },
    });
    handles.push(handle);
    const token = /development token for tenant "default": (\S+)\n$/.exec(stderr.text())?.[1];
    expect(token).toBeDefined();
    expect(await handle.store.authenticate(token)).toMatchObject({
      tenant: 'default',
      scopes: ['plants:read', 'plants:write', 'webhooks:read', 'webhooks:write'],
    });
  });

  it('refuses to start without tokens in production', async () => {
    const attempt = serve(loadConfig(['--port=0', '--storage=memory'], {}), {
      stdout: buffer().sink,
      stderr: buffer().sink,
      env: { NODE_ENV: 'production' },
    });
    await expect(attempt).rejects.toBeInstanceOf(ConfigurationError);
    await expect(attempt).rejects.toThrow(/^PLANT_STORE_TOKENS \(--tokens\): no tokens configured/);
  });

  it('fails with a ListenError when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const attempt = serve(loadConfig([`--port=${port}`, '--storage=memory', '--tokens=a=b'], {}), {
        stdout: buffer().sink,
        stderr: buffer().sink,
        env: {},
      });
      await expect(attempt).rejects.toBeInstanceOf(ListenError);
      await expect(attempt).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('serves the portal page and its files by default, and not with --portal=off', async () => {
    const on = await serve(loadConfig(['--port=0', '--storage=memory', '--tokens=a=b'], {}), { stdout: buffer().sink, stderr: buffer().sink, env: {} });
    handles.push(on);
    const page = await fetch(`${on.url}/portal`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(portal\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const file = await fetch(`${on.url}/${script}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/javascript; charset=utf-8');

    const off = await serve(loadConfig(['--port=0', '--storage=memory', '--tokens=a=b', '--portal=off'], {}), {
      stdout: buffer().sink,
      stderr: buffer().sink,
      env: {},
    });
    handles.push(off);
    expect((await fetch(`${off.url}/portal`)).status).toBe(404);
    expect((await fetch(`${off.url}/${script}`)).status).toBe(404);
  });

  it('takes its tracing from the process environment, and warns of OTEL_* entries of the given one it does not read', async () => {
    const sink = await startOtlpSink();
    try {
      const config = loadConfig(['--port=0', '--storage=memory', '--tokens=traced=t1'], {});
      const given = buffer();
      // Only the given environment names the sink: no tracing, and a warning that says why.
      const untraced = await serve(config, { stdout: given.sink, stderr: buffer().sink, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
      handles.push(untraced);
      expect((await fetch(`${untraced.url}/plants`, { headers: { authorization: 'Bearer traced' } })).status).toBe(200);
      await untraced.close();
      expect(given.text()).toContain('tracing: OTEL_* variables are read from the process environment; ignoring OTEL_EXPORTER_OTLP_ENDPOINT');
      expect(given.text()).not.toContain('"traceId"');
      expect(sink.spans).toEqual([]);

      // The process environment names it: the request's span reaches the sink, whatever the given environment lacks.
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', sink.url);
      const processEnv = buffer();
      const traced = await serve(config, { stdout: processEnv.sink, stderr: buffer().sink, env: {} });
      handles.push(traced);
      expect((await fetch(`${traced.url}/plants`, { headers: { authorization: 'Bearer traced' } })).status).toBe(200);
      await traced.close();
      expect(processEnv.text()).toContain('"traceId"');
      expect(processEnv.text()).not.toContain('ignoring');
      expect(sink.spans.map((span) => span.name)).toContain('GET /plants');
    } finally {
      await sink.close();
    }
  });
});
