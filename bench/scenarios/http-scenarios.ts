import { runLoad, type LoadRequest } from '../lib/load.js';
import type { PairedScenario } from '../lib/paired-rounds.js';
import { seededRandom } from '../lib/prng.js';
import type { RunningServer } from '../lib/server-process.js';

/** Tenants and their tokens; every token has both scopes (service `--tokens token=tenant`). */
export const BENCH_TOKENS = {
  'bench-read-token-0123456789abcdef': 'bench',
  'bench-write-token-0123456789abcdef': 'bench-writes',
  'bench-delete-token-0123456789abcdef': 'bench-deletes',
} as const;

const READ_TOKEN = 'bench-read-token-0123456789abcdef';
const WRITE_TOKEN = 'bench-write-token-0123456789abcdef';
const DELETE_TOKEN = 'bench-delete-token-0123456789abcdef';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonAuth = (token: string) => ({ ...auth(token), 'content-type': 'application/json' });

/** Ids of create phases start here, one band of 10^8 per phase (far from seeded and delete ids). */
const CREATE_BASE = 1_000_000_000;
const DELETE_BASE = 500_000_000;

/** The seeded plants: names of realistic length, a tag on even ids (so both output shapes occur). */
const seedPlantBody = (id: number) => `{"id":${id},"name":"Seeded plant number ${id}"${id % 2 === 0 ? `,"tag":"tag-${id % 8}"` : ''}}`;

/** POSTs `count` plants to a server (32 connections); throws unless every create answered 200. */
async function seedPlants(server: RunningServer, token: string, count: number, idOf: (index: number) => number): Promise<void> {
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
export async function seedReadServer(server: RunningServer, plants: number, deletesPerPhase: number, phases: number): Promise<void> {
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

/** DELETE of ids that do not exist: the not-found answer of a write (a transaction that changes nothing, an error body). */
export function deleteMissingScenario(): PairedScenario {
  return {
    name: 'delete-404',
    description: 'DELETE /plants/<id> of ids that do not exist (every answer a 404 with the error body)',
    headers: auth(DELETE_TOKEN),
    expectedStatus: 404,
    requests(phase) {
      let id = MISSING_BASE + phase * 100_000_000;
      return () => ({ method: 'DELETE', path: `/plants/${id++}` });
    },
  };
}

/** Delete runs a fixed amount per phase over ids created before the run (phase p owns ids p·amount … (p+1)·amount−1). */
export function deleteScenario(amount: number): PairedScenario {
  return {
    name: 'delete',
    description: `DELETE /plants/<id> of ${amount.toLocaleString('en-US')} pre-created plants per round (fixed amount, time measured)`,
    headers: auth(DELETE_TOKEN),
    amount,
    requests(phase) {
      let id = DELETE_BASE + phase * amount;
      return () => ({ method: 'DELETE', path: `/plants/${id++}` });
    },
  };
}
