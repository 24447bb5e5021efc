// scratch: CPU µs per request of service vs lean, amount-based
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileBaselines } from './lib/compile-baselines.js';
import { createServerLauncher, type Contestant } from './lib/server-launcher.js';
import { startServer, type RunningServer } from './lib/server-process.js';
import { runLoad } from './lib/load.js';
import { BENCH_TOKENS, createScenario, deleteMissingScenario, getScenario, listScenario, seedReadServer } from './scenarios/http-scenarios.js';
import type { PairedScenario } from './lib/paired-rounds.js';
import { startWebhookReceiver } from './lib/webhook-receiver.js';
const receiver = await startWebhookReceiver('hold');

const work = mkdtempSync(join(tmpdir(), 'h5cpu-'));
compileBaselines('bench/baselines', join(work, 'b'));
const launcher = createServerLauncher({ repoRoot: process.cwd(), serviceFrom: 'dist', baselineDir: join(work, 'b') });
const storages = (process.env.STORAGES ?? 'memory,sqlite').split(',') as ('memory' | 'sqlite')[];
const who = (process.env.WHO ?? 'service,lean').split(',') as Contestant[];
const N = Number(process.env.N ?? 20000);
const logging = process.env.LOGGING === 'on';
async function cpu(server: RunningServer, scenario: PairedScenario, phase: number, amount: number) {
  const before = server.stats().cpuSeconds;
  const r = await runLoad({ url: server.url, connections: 32, amount, headers: scenario.headers, expectedStatus: scenario.expectedStatus, next: scenario.requests(phase) });
  const after = server.stats().cpuSeconds;
  if (r.failures) throw new Error(`${server.label} ${scenario.name}: ${JSON.stringify(r.statuses)}`);
  return ((after - before) * 1e6) / r.requests;
}
for (const storage of storages) {
  const servers: RunningServer[] = [];
  for (const c of who) {
    const nodeFlags = process.env.PROF && c === 'service' ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : [];
    servers.push(await startServer(launcher.spec(c, { storage, dbFile: join(work, `${c}.db`), tokens: BENCH_TOKENS, logging, nodeFlags, webhooks: [{ url: receiver.url, secret: receiver.secret }], webhookTimeout: '1h' })));
  }
  for (const s of servers) await seedReadServer(s, 10000, 0, 0);
  const scenarios: PairedScenario[] = [createScenario('create', ''), listScenario(20, 10000), listScenario(100, 10000), getScenario(10000), deleteMissingScenario()];
  const only = process.env.ONLY?.split(',');
  for (const scenario of scenarios) {
    if (only && !only.includes(scenario.name)) continue;
    const line: string[] = [];
    for (const s of servers) {
      await cpu(s, scenario, 0, Math.min(5000, N));
      const a = await cpu(s, scenario, 1, N);
      const b = await cpu(s, scenario, 2, N);
      line.push(`${s.label.split(' ')[0]} ${a.toFixed(1)}/${b.toFixed(1)}`);
    }
    console.log(`${storage} ${scenario.name}: ${line.join('  ')}`);
  }
  await Promise.all(servers.map((s) => s.stop()));
}
await receiver.close();
