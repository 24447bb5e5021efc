import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { startServe, TSX } from '../cli/cli-process.js';
import { reservePort, startReceiver } from '../webhooks/webhook-receiver.js';

const root = join(import.meta.dirname, '..', '..');

/** The fenced code blocks of one README section, in order. */
const run = promisify(execFile);
const hasCurl = await run('curl', ['--version']).then(() => true, () => false);

async function codeBlocks(heading: string, language: string): Promise<string[]> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

describe('README', () => {
  it.each(['Embedding the core', 'Mounting the HTTP API in your own server'])('%s: the example runs as written and prints what the README says', async (heading) => {
    const [example, output] = await codeBlocks(heading, 'ts');
    expect(example).toBeDefined();
    // Run it from a scratch folder inside the repo (so @plant-store/* resolve)
    // and a scratch working directory (it writes ./data/example.db).
    const scratch = await mkdtemp(join(root, 'test', 'readme', '.run-'));
    const cwd = await mkdtemp(join(tmpdir(), 'plant-store-readme-'));
    try {
      const file = join(scratch, 'embedding.ts');
      await writeFile(file, example!);
      const { stdout } = await run(
        process.execPath,
        ['--conditions=source', '--import', TSX, file],
        { cwd, env: { ...process.env, NODE_OPTIONS: '' } },
      );
      const expected = (output ?? '').split('\n').filter((line) => line.startsWith('// ')).map((line) => line.slice(3));
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await rm(cwd, { recursive: true, force: true });
    }
  });
});

describe('README walk-through', () => {
  // The walk-through is written for curl; on a machine without it there is nothing to check.
  it.skipIf(!hasCurl)('prints exactly what the README shows, line by line', async () => {
    const [session] = await codeBlocks('HTTP API', 'console');
    const steps = session!.split(/^\$ /m).filter(Boolean).map((step) => {
      const [command, ...output] = step.trimEnd().split('\n');
      return { command: command!, output: output.join('\n') };
    });
    expect(steps.length).toBeGreaterThan(10);
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

describe('README webhook endpoints walk-through', () => {
  /** What differs on every run: ids, times and durations (the same on both sides of the comparison). */
  const normalise = (text: string) =>
    text
      .replace(/ep_[A-Za-z0-9_-]{20,}/g, 'ep_<id>')
      .replace(/msg_[0-9a-f]{32}/g, 'msg_<id>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
      .replace(/"durationMs":\d+/g, '"durationMs":<n>');

  it.skipIf(!hasCurl)('prints what the README shows, line by line, in one shell, to a real receiver', async () => {
    const [session] = await codeBlocks('Managing webhook endpoints', 'console');
    const steps = session!.split(/^\$ /m).filter(Boolean).map((step) => {
      const [command, ...output] = step.trimEnd().split('\n');
      return { command: command!, output: output.join('\n') };
    });
    expect(steps.length).toBeGreaterThan(10);
    const receiver = await startReceiver();
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 's3cret=acme'], {
      env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    try {
      const address = new URL(service.url).host;
      const receiverAddress = `127.0.0.1:${receiver.port}`;
      // One shell for the whole session (EP and MSG carry over); a marker line before each step splits the output.
      const script = steps.map(({ command }, index) => `echo '@@step ${index}'\n${command.replaceAll('127.0.0.1:8080', address).replaceAll('127.0.0.1:3000', receiverAddress)}`).join('\n');
      const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, TOKEN: 's3cret' } });
      const outputs = stdout.split(/^@@step \d+\n/m).slice(1);
      expect(outputs).toHaveLength(steps.length);
      steps.forEach(({ command, output }, index) => {
        const actual = normalise(outputs[index]!.trimEnd()).replaceAll(receiverAddress, '127.0.0.1:3000');
        expect({ command, output: actual }).toEqual({ command, output: normalise(output) });
      });
      expect(receiver.at('/hooks').length).toBeGreaterThanOrEqual(2);
    } finally {
      await service.stop();
      await receiver.close();
    }
  });
});

describe('README tokens file', () => {
  it('works as written: a named token with both scopes and a read-only one given by its digest', async () => {
    const [file] = await codeBlocks('Running the service', 'json');
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

describe('README typed client', () => {
  /** Writes `code` into a scratch folder inside the repo (so @plant-store/* resolve) and calls `use` with its path. */
  async function withScratchFile<T>(code: string, use: (file: string) => Promise<T>): Promise<T> {
    const scratch = await mkdtemp(join(root, 'test', 'readme', '.run-'));
    try {
      const file = join(scratch, 'example.ts');
      await writeFile(file, code);
      return await use(file);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  it('client example runs as written against the service and prints what the README says', async () => {
    const [example, output] = await codeBlocks('Typed client', 'ts');
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 's3cret=acme']);
    try {
      const code = example!.replaceAll('http://127.0.0.1:8080', service.url);
      const { stdout } = await withScratchFile(code, (file) =>
        run(process.execPath, ['--conditions=source', '--import', TSX, file], { env: { ...process.env, NODE_OPTIONS: '' } }),
      );
      const expected = output!.split('\n').filter((line) => line.startsWith('// ')).map((line) => line.slice(3));
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await service.stop();
    }
  });

  it('receiver example accepts a signed webhook and refuses a tampered one', async () => {
    const [, , receiver] = await codeBlocks('Typed client', 'ts');
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const port = await reservePort();
    const code = receiver!.replace('.listen(3000)', `.listen(${port}, '127.0.0.1')`);
    await withScratchFile(code, async (file) => {
      const child = spawn(process.execPath, ['--conditions=source', '--import', TSX, file], {
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
          'webhook-signature': new Webhook(secret).sign('msg_readme', timestamp, body),
        };
        const post = (text: string) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body: text }).then((response) => response.status);
        const deadline = Date.now() + 20_000;
        let status = await post(body).catch(() => 0);
        while (status === 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          status = await post(body).catch(() => 0);
        }
        expect(status).toBe(204);
        expect(await post(body.replace('Fern', 'Fern!'))).toBe(400);
        expect(stdout).toBe('new plant 9223372036854775807n webhook-id msg_readme\n');
      } finally {
        child.kill();
      }
    });
  });
});
