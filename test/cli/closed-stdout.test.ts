// `plant-store serve` whose stdout pipe is closed by its reader (a `| head`,
// a log collector that restarts): the log lines are dropped and said so once
// on stderr, and the service goes on answering.
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

const auth = { authorization: 'Bearer closed-stdout', 'content-type': 'application/json' };
const services: ServeProcess[] = [];
afterAll(async () => {
  for (const service of services) await service.stop('SIGKILL').catch(() => {});
});

describe('serve with its stdout closed', () => {
  it('keeps answering, drops the log lines and warns once on stderr', async () => {
    const service = await startServe(['--storage', 'memory', '--port', '0', '--tokens', 'closed-stdout=acme']);
    services.push(service);
    // The reader goes away: each request's log line now meets a closed pipe (EPIPE).
    service.child.stdout!.destroy();
    for (let id = 1; id <= 30; id++) {
      const created = await fetch(`${service.url}/plants`, { method: 'POST', headers: auth, body: JSON.stringify({ id, name: `Plant ${id}` }) });
      expect(created.status).toBe(200);
    }
    const listed = await fetch(`${service.url}/plants?limit=100`, { headers: auth });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as unknown[]).length).toBe(30);
    await eventually(() => service.stderr().includes('warning: the log output failed (EPIPE)'), 'the warning on stderr');
    expect(service.stderr().match(/the log output failed/g)).toHaveLength(1);
    expect(service.child.exitCode).toBeNull();
  });
});
