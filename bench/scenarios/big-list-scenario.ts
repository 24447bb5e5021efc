import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { openSqlite } from '../baselines/sqlite-driver.js';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startLoad } from '../lib/load.js';
import { seededRandom } from '../lib/prng.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { BENCH_TOKENS, READ_TOKEN as TOKEN } from './http-scenarios.js';

const TENANT = BENCH_TOKENS[TOKEN];
const SMALL_RATE = 200;
const SAMPLE_MS = 50;

export type BigListResult = Awaited<ReturnType<typeof measureBigList>>;

/** The schema from the storage adapter, then the rows the service would have written, in one transaction: faster than a million POSTs. */
async function seed(dbFile: string, count: number): Promise<void> {
  await (await sqliteStorage({ path: dbFile })).close();
  const db = openSqlite(dbFile);
  try {
    const insert = db.prepare('INSERT INTO plants (tenant, id, name, tag) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let id = 1; id <= count; id++) insert.run(TENANT, id, `Seeded plant number ${id}`, id % 2 === 0 ? `tag-${id % 8}` : null);
    })();
  } finally {
    db.close();
  }
}

/** Streams GET /plants (no limit) and counts plants and bytes without keeping the body. */
function streamAll(server: RunningServer): Promise<{ received: number; bytes: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(`${server.url}/plants`, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET /plants answered ${res.statusCode}`));
        return;
      }
      let received = 0;
      let bytes = 0;
      let carry = '';
      res.setEncoding('latin1');
      res.on('data', (text: string) => {
        bytes += text.length;
        // Count `{"id":` occurrences, keeping a tail so a marker split across chunks counts once.
        const window = carry + text;
        for (let at = window.indexOf('{"id":'); at >= 0; at = window.indexOf('{"id":', at + 6)) received++;
        carry = window.slice(-5);
      });
      res.on('end', () => resolve({ received, bytes, seconds: (performance.now() - started) / 1000 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The unlimited `GET /plants` over a large tenant: how long it takes, the server's peak RSS growth (sampled every 50 ms), and small requests meanwhile. */
export async function runBigListScenario(context: BenchContext) {
  const count = context.options.bigListPlants;
  const dbFile = join(context.workDir, 'big-list.db');
  const seedStart = performance.now();
  await seed(dbFile, count);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  context.log(`  seeded ${count} plants in ${seedSeconds.toFixed(1)} s`);
  const config: ServerConfig = { storage: 'sqlite', dbFile, tokens: BENCH_TOKENS, ...context.profile('big-list-sqlite-service') };
  return measureBigList(context, config, count, seedSeconds);
}

/** The same on PostgreSQL, seeded by one INSERT … SELECT over generate_series. */
export async function runPgBigListScenario(context: BenchContext, postgres: BenchPostgres) {
  const count = context.options.bigListPlants;
  const schema = await postgres.createSchema('big_list');
  try {
    const seedStart = performance.now();
    await postgres.query(
      `INSERT INTO "${schema}".plants (tenant, id, name, tag)
       SELECT $1::text, g, 'Seeded plant number ' || g, CASE WHEN g % 2 = 0 THEN 'tag-' || (g % 8) END
       FROM generate_series(1, $2::bigint) AS g`,
      [TENANT, count],
    );
    await postgres.query(`ANALYZE "${schema}".plants`);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    context.log(`  seeded ${count} plants in ${seedSeconds.toFixed(1)} s`);
    const config: ServerConfig = {
      ...postgres.serverConfig(schema),
      tokens: BENCH_TOKENS,
      ...context.profile('big-list-postgres-service'),
    };
    return await measureBigList(context, config, count, seedSeconds);
  } finally {
    await postgres.dropSchema(schema);
  }
}

async function measureBigList(context: BenchContext, config: ServerConfig, count: number, seedSeconds: number) {
  const server = await startServer(context.launcher.spec('service', config));
  try {
    await sleep(1000);
    const rssBeforeBytes = server.stats().rssBytes;
    let peakRssBytes = rssBeforeBytes;
    let samples = 0;
    const sampler = setInterval(() => {
      const rss = server.stats().rssBytes;
      samples++;
      if (rss > peakRssBytes) peakRssBytes = rss;
    }, SAMPLE_MS);
    const random = seededRandom(7);
    const small = startLoad({
      url: server.url,
      connections: 4,
      overallRate: SMALL_RATE,
      headers: { authorization: `Bearer ${TOKEN}` },
      next: () => ({ method: 'GET', path: `/plants/${random(count) + 1}` }),
    });
    let streamed: Awaited<ReturnType<typeof streamAll>>;
    try {
      streamed = await streamAll(server);
    } finally {
      small.stop();
      clearInterval(sampler);
    }
    const smallResult = await small.done;
    peakRssBytes = Math.max(peakRssBytes, server.stats().rssBytes);
    const result = {
      plants: count,
      seedSeconds,
      ...streamed,
      rssBeforeBytes,
      peakRssBytes,
      peakGrowthBytes: peakRssBytes - rssBeforeBytes,
      rssSamples: samples,
      /** GET /plants/{id} at a steady rate on 4 connections while the list streams. */
      small: smallResult,
    };
    context.log(
      `  streamed ${result.received} plants (${(result.bytes / 2 ** 20).toFixed(1)} MiB) in ${result.seconds.toFixed(2)} s; ` +
        `RSS +${(result.peakGrowthBytes / 2 ** 20).toFixed(1)} MiB at peak; small requests p99 ${result.small.p99Ms.toFixed(1)} ms`,
    );
    return result;
  } finally {
    await server.stop();
  }
}
