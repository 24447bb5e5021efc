import { runLoad, type LoadRequest } from '../lib/load.js';
import type { PairedScenario } from '../lib/paired-rounds.js';
import { seededRandom } from '../lib/prng.js';
import type { RunningServer } from '../lib/server-process.js';

export const READ_TOKEN = 'bench-read-token-0123456789abcdef';
export const WRITE_TOKEN = 'bench-write-token-0123456789abcdef';
const DELETE_TOKEN = 'bench-delete-token-0123456789abcdef';
/** Tenants and their tokens, each with every scope (service `--tokens token=tenant`): reads, creates and deletes each in a tenant of their own. */
export const BENCH_TOKENS = { [READ_TOKEN]: 'bench', [WRITE_TOKEN]: 'bench-writes', [DELETE_TOKEN]: 'bench-deletes' };

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonAuth = (token: string) => ({ ...auth(token), 'content-type': 'application/json' });

/** Ids of create phases start here, one band of 10^8 per phase (far from seeded and delete ids). */
const CREATE_BASE = 1_000_000_000;
const DELETE_BASE = 500_000_000;

/** The seeded plants: names of realistic length, a tag on even ids (so both output shapes occur). */
const seedPlantBody = (id: number) => `{"id":${id},"name":"Seeded plant number ${id}"${id % 2 === 0 ? `,"tag":"tag-${id % 8}"` : ''}}`;

/** POSTs `count` plants to a server (32 connections); throws unless every create answered 200. */
async function seedPlants(server: Pick<RunningServer, 'url' | 'label'>, token: string, count: number, idOf: (index: number) => number): Promise<void> {
  if (count === 0) return;
  let index = 0;
  const result = await runLoad({
    url: server.url,
    connections: 32,
    amount: count,
    headers: jsonAuth(token),
    next: () => ({ method: 'POST', path: '/plants', body: seedPlantBody(idOf(index++)) }),
  });
  if (result.failures > 0 || result.requests !== count) {
    throw new Error(`${server.label}: seeding ${count} plants failed: ${JSON.stringify(result.statuses)}, ${result.failures} failures`);
  }
}

/** Seeds what the read scenarios need: `plants` plants in the read tenant and the delete ids of every phase. */
export async function seedReadServer(server: Pick<RunningServer, 'url' | 'label'>, plants: number, deletesPerPhase: number, phases: number): Promise<void> {
  await seedPlants(server, READ_TOKEN, plants, (index) => index + 1);
  await seedPlants(server, DELETE_TOKEN, deletesPerPhase * phases, (index) => DELETE_BASE + index);
}

export function createScenario(name: string, description: string): PairedScenario {
  return {
    name,
    description,
    headers: jsonAuth(WRITE_TOKEN),
    requests(phase) {
      let id = CREATE_BASE + phase * 100_000_000;
      return (): LoadRequest => {
        id++;
        return { method: 'POST', path: '/plants', body: `{"id":${id},"name":"Benchmark plant ${id}","tag":"bench"}` };
      };
    },
  };
}

export function listScenario(limit: number, seeded: number): PairedScenario {
  return {
    name: `list-${limit}`,
    description: `GET /plants?limit=${limit}&after=<random cursor> over ${seeded.toLocaleString('en-US')} plants (Link header on every full page)`,
    headers: auth(READ_TOKEN),
    requests(phase) {
      const random = seededRandom(1000 + phase);
      return () => ({ method: 'GET', path: `/plants?limit=${limit}&after=${random(seeded - limit + 1)}` });
    },
  };
}

export function getScenario(seeded: number): PairedScenario {
  return {
    name: 'get',
    description: `GET /plants/<random id> over ${seeded.toLocaleString('en-US')} plants`,
    headers: auth(READ_TOKEN),
    requests(phase) {
      const random = seededRandom(2000 + phase);
      return () => ({ method: 'GET', path: `/plants/${random(seeded) + 1}` });
    },
  };
}

/** Ids no server ever holds: every DELETE of delete-404 answers 404. */
const MISSING_BASE = 800_000_000;

/**
 * DELETE of `amount` plants created before the run per phase (phase p owns
 * ids p·amount … (p+1)·amount−1), or, without `amount`, of ids that do not
 * exist: the not-found answer of a write (a transaction that changes nothing, an error body).
 */
export function deleteScenario(amount?: number): PairedScenario {
  return {
    name: amount === undefined ? 'delete-404' : 'delete',
    description:
      amount === undefined
        ? 'DELETE /plants/<id> of ids that do not exist (every answer a 404 with the error body)'
        : `DELETE /plants/<id> of ${amount.toLocaleString('en-US')} pre-created plants per round (fixed amount, time measured)`,
    headers: auth(DELETE_TOKEN),
    ...(amount === undefined ? { expectedStatus: 404 } : { amount }),
    requests(phase) {
      let id = amount === undefined ? MISSING_BASE + phase * 100_000_000 : DELETE_BASE + phase * amount;
      return () => ({ method: 'DELETE', path: `/plants/${id++}` });
    },
  };
}
