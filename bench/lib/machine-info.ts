import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import type { CpuPinning } from './cpu-pinning.js';

/** Where and with what a run happened, for the report header. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly memoryBytes: number;
  readonly os: string;
  readonly loadAverage: readonly number[];
  readonly node: string;
  readonly versions: Readonly<Record<string, string>>;
  readonly commit: string;
  /** Which CPU the servers and the harness ran on, or why they were not pinned. */
  readonly cpuPinning: CpuPinning;
}

function packageVersion(file: string): string {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return '?';
  }
}

function gitCommit(repoRoot: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return 'unknown';
  }
}

function sqliteVersion(betterSqlite3: string): string {
  try {
    type Db = { prepare(sql: string): { pluck(): { get(): unknown } }; close(): void };
    const Database = createRequire(import.meta.url)(betterSqlite3) as new (file: string) => Db;
    const db = new Database(':memory:');
    const version = String(db.prepare('select sqlite_version()').pluck().get());
    db.close();
    return version;
  } catch {
    return '?';
  }
}

export function machineInfo(repoRoot: string, betterSqlite3: string, cpuPinning: CpuPinning): MachineInfo {
  const cpuList = cpus();
  const sqliteDriverRoot = betterSqlite3.slice(0, betterSqlite3.lastIndexOf('/lib/'));
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cpuCount: cpuList.length,
    memoryBytes: totalmem(),
    os: `${osType()} ${release()}`,
    loadAverage: loadavg(),
    node: process.version,
    versions: {
      'plant-store (server)': packageVersion(join(repoRoot, 'packages/server/package.json')),
      autocannon: packageVersion(join(repoRoot, 'node_modules/autocannon/package.json')),
      'better-sqlite3': packageVersion(join(sqliteDriverRoot, 'package.json')),
      SQLite: sqliteVersion(betterSqlite3),
    },
    commit: gitCommit(repoRoot),
    cpuPinning,
  };
}
