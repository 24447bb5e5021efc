import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStorage } from '@plant-store/storage-sqlite';

const variant = process.argv[2] ?? 'as-is';
const dir = mkdtempSync(join(tmpdir(), 'cc-'));
const path = join(dir, 'db.sqlite');
const s0 = await sqliteStorage({ path });
await s0.close();
const raw = new BetterSqlite3(path);
if (variant.includes('noav')) { raw.pragma('auto_vacuum = NONE'); raw.exec('VACUUM'); }
if (variant.includes('noidx')) {
  raw.exec('DROP INDEX webhook_deliveries_endpoint_updated_at; DROP INDEX webhook_deliveries_created_at;');
}
raw.close();
const storage = await sqliteStorage({ path });
const N = 20000;
const t0 = process.cpuUsage(); const w0 = performance.now();
for (let i = 1; i <= N; i++) {
  await storage.plants.create('t', { id: BigInt(i), name: 'p' + i }, [{ id: 'msg_' + i, tenant: 't', endpointId: 'sub_1', eventType: 'plant.created', payload: '{"id":1}', createdAt: Date.now() }]);
}
const t = process.cpuUsage(t0); const w = performance.now() - w0;
console.log(variant, 'cpu µs/create', ((t.user + t.system) / N).toFixed(1), 'wall µs/create', (w * 1000 / N).toFixed(1), 'sys µs', (t.system / N).toFixed(1));
await storage.close();
