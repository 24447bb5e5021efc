import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../baselines/sqlite-driver.js';
import type { CpuPinning } from './cpu-pinning.js';

export type MachineInfo = ReturnType<typeof machineInfo>;

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

function sqliteVersion(): string {
  try {
    const db = openSqlite(':memory:');
    const version = String(db.prepare('select sqlite_version()').pluck().get());
    db.close();
    return version;
  } catch {
    return '?';
  }
}

/** Where and with what a run happened, for the report header. */
export function machineInfo(repoRoot: string, betterSqlite3: string, cpuPinning: CpuPinning) {
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
      SQLite: sqliteVersion(),
    },
    commit: gitCommit(repoRoot),
    cpuPinning,
  };
}
