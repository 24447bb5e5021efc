import { execFile, spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyWebhook } from '@plant-store/client';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { startServe, TSX } from '../support/cli-process.js';
import { reservePort, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const root = join(import.meta.dirname, '..', '..');

const run = promisify(execFile);
const hasCurl = await run('curl', ['--version']).then(
  () => true,
  () => false,
);

/**
 * Every `## ` section of README.md and docs/ holding a block in a runnable
 * language (below), with that language: each is run by a test in this file
 * (the generated clients' recipes by test/client/generated-clients.test.ts),
 * and the last test fails when a page gains such a block that none runs.
 */
const RUNNABLE = ['ts', 'js', 'json', 'console'];
const EXAMPLES = [
  { file: 'README.md', heading: 'Embedding the core', language: 'ts' },
  { file: 'README.md', heading: 'Mounting the HTTP API in your own server', language: 'ts' },
  { file: 'README.md', heading: 'Running the service', language: 'console' },
  { file: 'docs/http-api.md', heading: 'Walk-through with curl', language: 'console' },
  { file: 'docs/webhook-endpoints.md', heading: 'Walk-through with curl', language: 'console' },
  { file: 'docs/webhook-endpoints.md', heading: 'While an endpoint is disabled', language: 'console' },
  { file: 'docs/authentication.md', heading: 'Tokens', language: 'json' },
  { file: 'docs/webhooks.md', heading: 'Subscribing', language: 'json' },
  { file: 'docs/webhooks.md', heading: 'A receiver', language: 'js' },
  { file: 'docs/webhooks.md', heading: 'A receiver for Ed25519 endpoints', language: 'js' },
  { file: 'docs/webhooks.md', heading: 'Ed25519 with node:crypto alone', language: 'js' },
  { file: 'docs/client.md', heading: 'Example', language: 'ts' },
  { file: 'docs/client.md', heading: 'Generated clients', language: 'ts' },
  { file: 'docs/client.md', heading: 'Verifying webhooks', language: 'ts' },
  { file: 'README.md', heading: 'Receiving webhooks', language: 'ts' },
  { file: 'docs/data-lifecycle.md', heading: 'What is kept, and for how long', language: 'ts' },
  { file: 'docs/portal.md', heading: 'Turning it off', language: 'ts' },
  { file: 'docs/testing.md', heading: 'A test store', language: 'ts' },
  { file: 'docs/frameworks.md', heading: 'Express', language: 'ts' },
  { file: 'docs/frameworks.md', heading: 'Fastify', language: 'ts' },
  { file: 'docs/frameworks.md', heading: 'Fetch handler (Hono and other fetch runtimes)', language: 'ts' },
  { file: 'docs/embedding.md', heading: 'Your connection', language: 'ts' },
  { file: 'docs/embedding.md', heading: 'Your migrations', language: 'ts' },
  { file: 'docs/embedding.md', heading: 'Your transactions', language: 'ts' },
  // Run by test/embedding/orders-example.test.ts (it needs PostgreSQL): the page shows the example's function as it is.
  { file: 'docs/embedding.md', heading: 'Example: orders and plants on PostgreSQL', language: 'ts' },
  // Run by destination-examples.test.ts, against the brokers.
  { file: 'docs/destinations.md', heading: 'URL shapes', language: 'ts' },
  { file: 'docs/destinations.md', heading: 'In a host application', language: 'ts' },
] as const;

/** The `## ` sections of a Markdown page, by heading (text up to the next `## `). */
async function sections(file: string): Promise<Map<string, string>> {
  const text = await readFile(join(root, file), 'utf8');
  const parts = text.split(/^## /m).slice(1);
  return new Map(parts.map((part) => [part.slice(0, part.indexOf('\n')), part]));
}

const fenced = (section: string, language: string) =>
  [...section.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((match) => match[1]!);

/** The fenced code blocks in `language` of one section of a page, in order. */
async function codeBlocks(file: (typeof EXAMPLES)[number]['file'], heading: string, language: string): Promise<string[]> {
  const section = (await sections(file)).get(heading);
  if (section === undefined) throw new Error(`${file} has no "## ${heading}" section`);
  return fenced(section, language);
}

/** The `$ command` lines of a console block and the output shown under each. */
function consoleSteps(session: string): { command: string; output: string }[] {
  return session
    .split(/^\$ /m)
    .filter(Boolean)
    .map((step) => {
      const [command, ...output] = step.trimEnd().split('\n');
      return { command: command!, output: output.join('\n') };
    });
}

describe('library examples', () => {
  it.each([
    { file: 'README.md', heading: 'Embedding the core' },
    { file: 'README.md', heading: 'Mounting the HTTP API in your own server' },
    { file: 'docs/data-lifecycle.md', heading: 'What is kept, and for how long' },
    { file: 'docs/portal.md', heading: 'Turning it off' },
    { file: 'docs/testing.md', heading: 'A test store' },
    { file: 'docs/frameworks.md', heading: 'Express' },
    { file: 'docs/frameworks.md', heading: 'Fastify' },
    { file: 'docs/frameworks.md', heading: 'Fetch handler (Hono and other fetch runtimes)' },
    { file: 'docs/embedding.md', heading: 'Your connection' },
    { file: 'docs/embedding.md', heading: 'Your migrations' },
    { file: 'docs/embedding.md', heading: 'Your transactions' },
  ] as const)('$file $heading: the example runs as written and prints what the page says', async ({ file: page, heading }) => {
    const [example, output] = await codeBlocks(page, heading, 'ts');
    expect(example).toBeDefined();
    // Run it from a scratch folder inside the repo (so @plant-store/* resolve)
    // and a scratch working directory (it writes ./data/example.db).
    const scratch = await mkdtemp(join(root, 'test', 'readme', '.run-'));
    const cwd = await mkdtemp(join(tmpdir(), 'plant-store-readme-'));
    try {
      const file = join(scratch, 'embedding.ts');
      await writeFile(file, example!);
      const { stdout } = await run(process.execPath, ['--conditions=source', '--import', TSX, file], { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
      const expected = (output ?? '')
        .split('\n')
        .filter((line) => line.startsWith('// '))
        .map((line) => line.slice(3));
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await rm(cwd, { recursive: true, force: true });
    }
  });
});

describe('curl walk-throughs', () => {
  // They are written for curl; on a machine without it there is nothing to check.
  it.skipIf(!hasCurl).each([
    { file: 'README.md', heading: 'Running the service', minSteps: 2 },
    { file: 'docs/http-api.md', heading: 'Walk-through with curl', minSteps: 10 },
  ] as const)('$file $heading: prints exactly what the page shows, line by line', async ({ file, heading, minSteps }) => {
    const [session] = await codeBlocks(file, heading, 'console');
    const steps = consoleSteps(session!);
    expect(steps.length).toBeGreaterThanOrEqual(minSteps);
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 's3cret=acme']);
    try {
      const address = new URL(service.url).host;
      for (const { command, output } of steps) {
        const { stdout } = await run('bash', ['-c', command.replaceAll('127.0.0.1:8080', address)], {
          env: { ...process.env, TOKEN: 's3cret' },
        });
        expect({ command, output: stdout.trimEnd() }).toEqual({ command, output });
      }
    } finally {
      await service.stop();
    }
  });
});

describe('webhook endpoints walk-through', () => {
  /** What differs on every run: ids, times and durations (the same on both sides of the comparison). */
  const normalise = (text: string) =>
    text
      .replace(/ep_[A-Za-z0-9_-]{20,}/g, 'ep_<id>')
      .replace(/msg_[0-9a-f]{32}/g, 'msg_<id>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
      .replace(/"durationMs":\d+/g, '"durationMs":<n>')
      .replace(/whpk_[A-Za-z0-9+/]{43}=/g, 'whpk_<key>');

  /** Runs a section's console session in one shell (EP and MSG carry over) against a fresh service and `receiver`; resolves with its whole output. */
  async function runSession(session: string, receiver: WebhookReceiver, minSteps: number): Promise<string> {
    const steps = consoleSteps(session);
    expect(steps.length).toBeGreaterThanOrEqual(minSteps);
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 's3cret=acme'], {
      env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    try {
      const address = new URL(service.url).host;
      const receiverAddress = `127.0.0.1:${receiver.port}`;
      // A marker line before each step splits the output.
      const script = steps
        .map(({ command }, index) => `echo '@@step ${index}'\n${command.replaceAll('127.0.0.1:8080', address).replaceAll('127.0.0.1:3000', receiverAddress)}`)
        .join('\n');
      const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, TOKEN: 's3cret' } });
      const outputs = stdout.split(/^@@step \d+\n/m).slice(1);
      expect(outputs).toHaveLength(steps.length);
      steps.forEach(({ command, output }, index) => {
        const actual = normalise(outputs[index]!.trimEnd()).replaceAll(receiverAddress, '127.0.0.1:3000');
        expect({ command, output: actual }).toEqual({ command, output: normalise(output) });
      });
      return stdout;
    } finally {
      await service.stop();
    }
  }

  it.skipIf(!hasCurl)('prints what docs/webhook-endpoints.md shows, line by line, in one shell, to a real receiver', async () => {
    const [session] = await codeBlocks('docs/webhook-endpoints.md', 'Walk-through with curl', 'console');
    const receiver = await startReceiver();
    try {
      const stdout = await runSession(session!, receiver, 11);
      expect(receiver.at('/hooks').length).toBeGreaterThanOrEqual(2);
      // Both kinds verify: the HMAC endpoint with its (rotated) secret, the Ed25519 one with its public key alone.
      // The secret the page creates the endpoint with (it still signs after the rotation, for the overlap).
      const secret = /"secret": "(whsec_[^"]+)"/.exec(session!)![1]!;
      for (const request of receiver.at('/hooks')) await expect(verifyWebhook(request.body, request.headers, secret)).resolves.toBeDefined();
      const publicKey = /whpk_[A-Za-z0-9+/]{43}=/.exec(stdout)![0];
      const [signed] = receiver.at('/signed');
      expect(signed!.headers['authorization']).toBe('Bearer receiver-token');
      expect(signed!.headers['webhook-signature']).toMatch(/^v1a,/);
      await expect(verifyWebhook(signed!.body, signed!.headers, publicKey)).resolves.toEqual({ id: 1n, name: 'Monstera' });
    } finally {
      await receiver.close();
    }
  });

  it.skipIf(!hasCurl)('prints what its "While an endpoint is disabled" shows: the message kept while it was off is sent once it is enabled', async () => {
    const [session] = await codeBlocks('docs/webhook-endpoints.md', 'While an endpoint is disabled', 'console');
    const receiver = await startReceiver();
    try {
      await runSession(session!, receiver, 6);
      expect(receiver.at('/kept').map((request) => request.body)).toEqual(['{"id":21,"name":"Aloe"}']);
    } finally {
      await receiver.close();
    }
  });
});

describe('tokens file', () => {
  it('works as written: a named token with both scopes and a read-only one given by its digest', async () => {
    const [file] = await codeBlocks('docs/authentication.md', 'Tokens', 'json');
    const folder = await mkdtemp(join(tmpdir(), 'plant-store-tokens-'));
    const path = join(folder, 'tokens.json');
    await writeFile(path, file!);
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens-file', path]);
    try {
      const call = (token: string, init: RequestInit = {}) =>
        fetch(`${service.url}/plants`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
      const body = JSON.stringify({ id: 1, name: 'Fern' });
      expect((await call('s3cret', { method: 'POST', body })).status).toBe(200);
      expect((await call('read-only-s3cret')).status).toBe(200);
      expect((await call('read-only-s3cret', { method: 'POST', body })).status).toBe(403);
    } finally {
      await service.stop();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('webhook subscriptions', () => {
  it('the example is accepted by serve once its secret placeholder is filled in', async () => {
    const [example] = await codeBlocks('docs/webhooks.md', 'Subscribing', 'json');
    const placeholder = 'whsec_<base64 of at least 24 random bytes>';
    expect(example).toContain(placeholder);
    const subscriptions = example!.replace(placeholder, `whsec_${Buffer.alloc(24, 7).toString('base64')}`);
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 's3cret=acme', '--webhooks', subscriptions]);
    await service.stop();
  });
});

describe('typed client and receivers', () => {
  /** Writes `code` into a scratch folder inside the repo (so @plant-store/* and standardwebhooks resolve) and calls `use` with its path. */
  async function withScratchFile<T>(code: string, extension: string, use: (file: string) => Promise<T>): Promise<T> {
    const scratch = await mkdtemp(join(root, 'test', 'readme', '.run-'));
    try {
      const file = join(scratch, `example.${extension}`);
      await writeFile(file, code);
      return await use(file);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  it('client example runs as written against the service and prints what docs/client.md says', async () => {
    const [example, output] = await codeBlocks('docs/client.md', 'Example', 'ts');
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 's3cret=acme']);
    try {
      const code = example!.replaceAll('http://127.0.0.1:8080', service.url);
      const { stdout } = await withScratchFile(code, 'ts', (file) =>
        run(process.execPath, ['--conditions=source', '--import', TSX, file], { env: { ...process.env, NODE_OPTIONS: '' } }),
      );
      const expected = output!
        .split('\n')
        .filter((line) => line.startsWith('// '))
        .map((line) => line.slice(3));
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await service.stop();
    }
  });

  it.each([
    { file: 'docs/client.md', heading: 'Verifying webhooks', language: 'ts', kind: 'hmac', printed: 'new plant 9223372036854775807n webhook-id msg_readme\n' },
    { file: 'README.md', heading: 'Receiving webhooks', language: 'ts', kind: 'hmac', printed: 'new plant 9223372036854775807n webhook-id msg_readme\n' },
    { file: 'README.md', heading: 'Receiving webhooks', language: 'ts', kind: 'ed25519', printed: 'new plant 9223372036854775807n webhook-id msg_readme\n' },
    { file: 'docs/webhooks.md', heading: 'A receiver', language: 'js', kind: 'hmac', printed: 'new plant {"id":9223372036854775807,"name":"Fern"}\n' },
    {
      file: 'docs/webhooks.md',
      heading: 'A receiver for Ed25519 endpoints',
      language: 'js',
      kind: 'ed25519',
      printed: 'new plant {"id":9223372036854775807,"name":"Fern"}\n',
    },
    {
      file: 'docs/webhooks.md',
      heading: 'Ed25519 with node:crypto alone',
      language: 'js',
      kind: 'ed25519',
      printed: 'new plant {"id":9223372036854775807,"name":"Fern"}\n',
    },
  ] as const)(
    '$file $heading ($kind): the receiver accepts a signed webhook and refuses a tampered one',
    async ({ file, heading, language, kind, printed }) => {
      const [receiver] = await codeBlocks(file, heading, language);
      const hmacSecret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      // What the receiver is given: the secret, or the public key alone (base64 of its raw 32 bytes).
      const secret = kind === 'hmac' ? hmacSecret : `whpk_${Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64')}`;
      const signature = (id: string, timestamp: Date, body: string) =>
        kind === 'hmac'
          ? new Webhook(hmacSecret).sign(id, timestamp, body)
          : `v1a,${sign(null, Buffer.from(`${id}.${Math.floor(timestamp.getTime() / 1000)}.${body}`), privateKey).toString('base64')}`;
      const port = await reservePort();
      expect(receiver).toContain('.listen(3000)');
      const code = receiver!.replace('.listen(3000)', `.listen(${port}, '127.0.0.1')`);
      await withScratchFile(code, language, async (path) => {
        const child = spawn(process.execPath, ['--conditions=source', '--import', TSX, path], {
          env: { ...process.env, NODE_OPTIONS: '', PLANT_STORE_WEBHOOK_SECRET: secret },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let stdout = '';
        child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        try {
          const body = '{"id":9223372036854775807,"name":"Fern"}';
          const timestamp = new Date();
          const headers = {
            'webhook-id': 'msg_readme',
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature('msg_readme', timestamp, body),
          };
          const post = (text: string) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body: text }).then((response) => response.status);
          // The receiver is up once a request gets through at all.
          const status = await vi.waitFor(() => post(body), { timeout: 20_000, interval: 50 });
          expect(status).toBe(204);
          expect(await post(body.replace('Fern', 'Fern!'))).toBe(400);
          expect(stdout).toBe(printed);
        } finally {
          child.kill();
        }
      });
    },
  );
});

describe('documented examples', () => {
  it('every section of README.md and docs/ with a ts, js, json or console block is run by a test above', async () => {
    const pages = ['README.md', ...(await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
    const found: string[] = [];
    for (const file of pages) {
      for (const [heading, section] of await sections(file)) {
        for (const language of RUNNABLE) if (fenced(section, language).length) found.push(`${file} "${heading}" ${language}`);
      }
    }
    const tested = EXAMPLES.map(({ file, heading, language }) => `${file} "${heading}" ${language}`);
    expect(
      found.filter((example) => !tested.includes(example)),
      'examples no test runs: add them to EXAMPLES and run them',
    ).toEqual([]);
    expect(
      tested.filter((example) => !found.includes(example)),
      'EXAMPLES names sections that hold no such block',
    ).toEqual([]);
  });
});
