import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// An https:// tenant receiver through the proxy: the tunnel goes to the checked
// address, while SNI and the certificate check keep the receiver's name. Node
// trusts a CA only from NODE_EXTRA_CA_CERTS at start, so the sending side runs
// in a child process; the certificate comes from openssl (skipped without it).

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const openssl = spawnSync('openssl', ['version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'plant-store-proxy-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = `
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { connectProxy } from './test/support/connect-proxy.ts';
import { guardedWebhookHttpTransport } from './packages/http-node/src/webhooks/webhook-http-transport.ts';

const dir = process.env.CERT_DIR;
const served = [];
const server = https.createServer({ key: readFileSync(dir + '/key.pem'), cert: readFileSync(dir + '/cert.pem') }, (req, res) => {
  served.push({ host: req.headers.host, servername: req.socket.servername });
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const proxy = await connectProxy();
// receiver.example and other.example both resolve to loopback, taken for public here.
const resolve = (_hostname, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
const transport = guardedWebhookHttpTransport({ proxy: proxy.url }, { resolve, isAllowed: () => true });
const send = (host) => transport.send({ url: 'https://' + host + ':' + port + '/hook', headers: {}, body: '{}', timeoutMs: 5000, signal: new AbortController().signal, restrictDestination: true });
const outcomes = [await send('receiver.example'), await send('other.example')];
console.log(JSON.stringify({ port, outcomes, served, connects: proxy.connects }));
await proxy.close();
server.closeAllConnections();
server.close();
`;

describe('webhookHttpTransport through a CONNECT proxy to an https:// receiver', () => {
  it.skipIf(!openssl)('connects to the checked address, with SNI and the certificate check on the receiver name', () => {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=receiver.example'].concat([
        '-addext',
        'subjectAltName=DNS:receiver.example',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    const run = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '', NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'), CERT_DIR: dir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    const { port, outcomes, served, connects } = JSON.parse(run.stdout) as {
      port: number;
      outcomes: unknown[];
      served: { host: string; servername: string }[];
      connects: string[];
    };
    expect(outcomes[0]).toEqual({ kind: 'delivered', statusCode: 204 });
    // The certificate is for receiver.example only: the name, not the address, was checked.
    expect(outcomes[1]).toMatchObject({ kind: 'retry', reason: expect.stringContaining('ERR_TLS_CERT_ALTNAME_INVALID') });
    expect(served).toEqual([{ host: `receiver.example:${port}`, servername: 'receiver.example' }]);
    expect(connects).toEqual([`127.0.0.1:${port}`, `127.0.0.1:${port}`]);
  });
});
