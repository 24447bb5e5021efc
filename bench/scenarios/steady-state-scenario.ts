import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer } from '../lib/server-process.js';
import { percentile } from '../lib/stats.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, WRITE_TOKEN as TOKEN } from './http-scenarios.js';

const RATE = 200;
const PRUNED = 'plant_store_webhook_deliveries_pruned_total';
/** How often the pruned counter is read: a request counts as "while pruning" when it started in a window the counter moved in. */
const PRUNE_WINDOW_MS = 250;

export type SteadyStateResult = Awaited<ReturnType<typeof runSteadyStateScenario>>;

async function prunedSoFar(url: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((entry) => entry.startsWith(`${PRUNED} `));
    return line === undefined ? undefined : Number(line.slice(PRUNED.length + 1));
  } catch {
    return undefined;
  }
}

const sqliteSize = (dbFile: string) => [dbFile, `${dbFile}-wal`].reduce((sum, file) => sum + (statSync(file, { throwIfNoEntry: false })?.size ?? 0), 0);

async function postgresSize(postgres: BenchPostgres, schema: string): Promise<number> {
  const [row] = await postgres.query<{ bytes: string }>(
    `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return Number(row!.bytes);
}

/**
 * A service at a steady load with a short webhook retention: creates paced
 * at 200/s, each delivered, every plant deleted a retention later (so the
 * plant table keeps its size), the storage's size sampled meanwhile. Reports
 * the growth over the second half, and the create p99 of requests started
 * while a prune batch ran against the others (both after the first prune).
 */
export async function runSteadyStateScenario(
  context: BenchContext,
  storage: { readonly kind: 'sqlite' } | { readonly kind: 'postgres'; readonly postgres: BenchPostgres },
) {
  const { options } = context;
  const seconds = options.steadyStateS;
  const retentionS = options.steadyRetentionS;
  const keepPlantsS = retentionS;
  const receiver = await startReceiver();
  const dbFile = join(context.workDir, 'steady-state.db');
  const schema = storage.kind === 'postgres' ? await storage.postgres.createSchema('steady') : undefined;
  const config: ServerConfig = {
    ...(storage.kind === 'sqlite' ? { storage: 'sqlite', dbFile } : storage.postgres.serverConfig(schema!)),
    tokens: BENCH_TOKENS,
    logging: false,
    webhooks: [{ url: receiver.url(), secret: receiver.secret }],
    webhookRetention: `${retentionS}s`,
    ...context.profile(`steady-state-${storage.kind}`),
  };
  const server = await startServer(context.launcher.spec('service', config));
  const size = async () => (storage.kind === 'sqlite' ? sqliteSize(dbFile) : postgresSize(storage.postgres, schema!));
  // With the server's autovacuum off, only the service's own VACUUM after pruning reclaims deleted rows.
  const autovacuum = storage.kind === 'postgres' ? (await storage.postgres.query<{ autovacuum: string }>('SHOW autovacuum'))[0]!.autovacuum : undefined;
  try {
    const started = performance.now();
    const elapsedS = () => (performance.now() - started) / 1000;
    const timings: { startedAt: number; ms: number }[] = [];
    let failures = 0;
    let creates = 0;
    const inFlight = new Set<Promise<void>>();
    const send = (method: 'POST' | 'DELETE', path: string, body?: string, timed = false) => {
      const at = performance.now();
      const request = fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
      })
        .then(async (response) => {
          await response.arrayBuffer();
          if (!response.ok && !(method === 'DELETE' && response.status === 404)) failures++;
          if (timed) timings.push({ startedAt: at, ms: performance.now() - at });
        })
        .catch(() => void failures++)
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    };

    // Pruning windows: [from, to) spans in which the service's pruned counter moved.
    const pruningWindows: { from: number; to: number }[] = [];
    let lastPruned = 0;
    let lastProbe = performance.now();
    const probe = setInterval(() => {
      const from = lastProbe;
      void prunedSoFar(server.url).then((pruned) => {
        const to = performance.now();
        if (pruned !== undefined && pruned > lastPruned) pruningWindows.push({ from, to });
        if (pruned !== undefined) lastPruned = pruned;
        lastProbe = to;
      });
    }, PRUNE_WINDOW_MS);

    // Size: SQLite's database file + WAL, or every table of the PostgreSQL schema with its indexes and TOAST.
    const samples: { atS: number; bytes: number; pruned: number }[] = [];
    const sampleEveryS = Math.max(1, Math.round(seconds / 40));
    let nextSampleS = 0;
    let nextId = 1;
    const keep = RATE * keepPlantsS;
    const serverSide = autovacuum === undefined ? '' : `, server autovacuum ${autovacuum}`;
    context.log(`  ${storage.kind}: ${seconds} s at ${RATE} creates/s, retention ${retentionS} s, sampling every ${sampleEveryS} s${serverSide}`);
    while (elapsedS() < seconds) {
      const due = Math.floor(elapsedS() * RATE);
      while (nextId <= due) {
        const id = nextId++;
        send('POST', '/plants', `{"id":${id},"name":"Steady plant ${id}"}`, true);
        creates++;
        if (id > keep) send('DELETE', `/plants/${id - keep}`);
      }
      if (elapsedS() >= nextSampleS) {
        const measured = await size();
        samples.push({ atS: Math.round(elapsedS()), bytes: measured, pruned: lastPruned });
        nextSampleS += sampleEveryS;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(inFlight);
    clearInterval(probe);
    samples.push({ atS: Math.round(elapsedS()), bytes: await size(), pruned: (await prunedSoFar(server.url)) ?? lastPruned });

    const mid = samples.reduce((best, sample) => (Math.abs(sample.atS - seconds / 2) < Math.abs(best.atS - seconds / 2) ? sample : best));
    const last = samples[samples.length - 1]!;
    const firstPrune = pruningWindows[0]?.from ?? Infinity;
    const pruning: number[] = [];
    const idle: number[] = [];
    for (const timing of timings) {
      if (timing.startedAt < firstPrune) continue;
      const during = pruningWindows.some((window) => timing.startedAt >= window.from && timing.startedAt < window.to);
      (during ? pruning : idle).push(timing.ms);
    }
    const p99 = (values: number[]) => (values.length ? percentile(Float64Array.from(values).sort(), 99) : Number.NaN);
    const result = {
      storage: storage.kind,
      seconds,
      ratePerSecond: RATE,
      retentionS,
      /** Plants are deleted this long after their creation, so the plant table itself stays the same size. */
      keepPlantsS,
      /** PostgreSQL only: the server's `autovacuum` setting (the service vacuums the outbox tables itself after pruning either way). */
      serverAutovacuum: autovacuum,
      creates,
      failures,
      delivered: receiver.messages.size,
      samples,
      midBytes: mid.bytes,
      finalBytes: last.bytes,
      growthPercent: ((last.bytes - mid.bytes) / mid.bytes) * 100,
      /** Create p99 of requests that started while no prune batch ran / while one did (after the first prune only). */
      p99IdleMs: p99(idle),
      p99PruningMs: p99(pruning),
      requestsIdle: idle.length,
      requestsPruning: pruning.length,
    };
    context.log(
      `  ${storage.kind}: ${(mid.bytes / 2 ** 20).toFixed(1)} MiB at the middle → ${(last.bytes / 2 ** 20).toFixed(1)} MiB at the end ` +
        `(${result.growthPercent.toFixed(1)} %); create p99 ${result.p99IdleMs.toFixed(2)} ms idle, ${result.p99PruningMs.toFixed(2)} ms while pruning`,
    );
    return result;
  } finally {
    await server.stop();
    await receiver.close();
    if (schema !== undefined && storage.kind === 'postgres') await storage.postgres.dropSchema(schema);
  }
}
