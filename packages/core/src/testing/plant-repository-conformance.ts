import { describe, expect, it } from 'vitest';
import { PLANT_FIELDS, type PlantField } from '../domain/plant-fields.js';
import { plantToJson, type Plant } from '../domain/plant.js';
import { StorageError } from '../errors.js';
import type { ListPlantsQuery } from '../ports/plant-repository.js';
import type { Storage } from '../ports/storage.js';
import { delivery, plant } from './storage-fixtures.js';

const ids = (plants: readonly Plant[]) => plants.map((p) => p.id);

/** `PlantRepository` contract; `storage()` is the fresh storage of the running test. */
export function describePlantRepositoryConformance(storage: () => Storage): void {
  const plants = () => storage().plants;
  const createAll = async (tenant: string, list: readonly Plant[]) => {
    for (const p of list) await plants().create(tenant, p, []);
  };

  describe('plants', () => {
    it('creates a plant and gets it back; unknown ids are undefined', async () => {
      const result = await plants().create('t', plant(42n, 'Ficus', 'indoor'), []);
      expect(result).toEqual({ created: true, plant: { id: 42n, name: 'Ficus', tag: 'indoor' } });
      expect(await plants().get('t', 42n)).toEqual({ id: 42n, name: 'Ficus', tag: 'indoor' });
      expect(await plants().get('t', 43n)).toBeUndefined();
    });

    it('keeps names and tags exact, including non-ASCII text', async () => {
      const name = 'Monstera déliciosa 🌿 \u4e2d\u6587 "quoted" \\ back';
      await plants().create('t', plant(1n, name, 'ünïcødé'), []);
      expect(await plants().get('t', 1n)).toEqual({ id: 1n, name, tag: 'ünïcødé' });
    });

    it('stores every field of the plant, and leaves out an absent optional field (no key at all)', async () => {
      const fields = Object.entries(PLANT_FIELDS) as [string, PlantField][];
      const value = (name: string, field: PlantField) => (field.type === 'int64' ? 1n : `${name} ünïcødé 🌿 "q" \\`.slice(0, field.maxLength));
      const full = Object.fromEntries(fields.map(([name, field]) => [name, value(name, field)])) as Plant;
      const bare = { ...Object.fromEntries(fields.filter(([, field]) => !field.optional).map(([name, field]) => [name, value(name, field)])), id: 2n } as Plant;
      for (const stored of [full, bare]) {
        const created = await plants().create('t', stored, []);
        const [listed] = await plants().list('t', { after: stored.id - 1n, limit: 1 });
        for (const result of [created.plant, await plants().get('t', stored.id), listed]) expect(result).toStrictEqual(stored);
      }
    });

    it('returns copies: mutating a result does not change what is stored', async () => {
      const created = await plants().create('t', plant(1n, 'a', 'x'), []);
      (created.plant as { name: string }).name = 'changed';
      const [listed] = await plants().list('t', { limit: 1 });
      (listed as { tag?: string }).tag = 'changed';
      const got = await plants().get('t', 1n);
      (got as { id: bigint }).id = 99n;
      expect(await plants().get('t', 1n)).toEqual({ id: 1n, name: 'a', tag: 'x' });
    });

    it('keeps int64 extremes exact and orders ids numerically, negatives first', async () => {
      const ordered = [-9223372036854775808n, -10n, -2n, 0n, 2n, 10n, 9007199254740993n, 9223372036854775807n];
      // Insert out of order so neither insertion order nor text order can pass.
      await createAll(
        't',
        [10n, -2n, 9223372036854775807n, 0n, -9223372036854775808n, 2n, 9007199254740993n, -10n].map((id) => plant(id, `p${id}`)),
      );
      expect(ids(await plants().list('t', { limit: 100 }))).toEqual(ordered);
      expect(await plants().get('t', 9223372036854775807n)).toEqual({ id: 9223372036854775807n, name: 'p9223372036854775807' });
      expect(await plants().get('t', -9223372036854775808n)).toEqual({ id: -9223372036854775808n, name: 'p-9223372036854775808' });
      // 2^53 + 1 is not a double: a lossy adapter would find 2^53 or nothing.
      expect((await plants().get('t', 9007199254740993n))?.id).toBe(9007199254740993n);
      expect(await plants().get('t', 9007199254740992n)).toBeUndefined();
      expect(ids(await plants().list('t', { after: -9223372036854775808n, limit: 2 }))).toEqual([-10n, -2n]);
      expect(ids(await plants().list('t', { after: 10n, limit: 100 }))).toEqual([9007199254740993n, 9223372036854775807n]);
      expect(await plants().list('t', { after: 9223372036854775807n, limit: 100 })).toEqual([]);
      expect(ids(await plants().list('t', { until: -9223372036854775808n, limit: 100 }))).toEqual([-9223372036854775808n]);
    });

    it('pages with after, until and limit (keyset pagination)', async () => {
      await createAll(
        't',
        [5n, 1n, 9n, 3n, 7n, 2n, 8n, 4n, 10n, 6n].map((id) => plant(id, `p${id}`)),
      );
      expect(ids(await plants().list('t', { limit: 3 }))).toEqual([1n, 2n, 3n]);
      expect(ids(await plants().list('t', { after: 3n, limit: 3 }))).toEqual([4n, 5n, 6n]);
      expect(ids(await plants().list('t', { after: 9n, limit: 3 }))).toEqual([10n]);
      expect(await plants().list('t', { after: 10n, limit: 3 })).toEqual([]);
      // `after` need not be a stored id.
      expect(ids(await plants().list('t', { after: -100n, limit: 2 }))).toEqual([1n, 2n]);
      expect(ids(await plants().list('t', { after: 2n, until: 5n, limit: 100 }))).toEqual([3n, 4n, 5n]);
      expect(ids(await plants().list('t', { after: 2n, until: 5n, limit: 2 }))).toEqual([3n, 4n]);
      expect(ids(await plants().list('t', { until: 1n, limit: 100 }))).toEqual([1n]);
      expect(await plants().list('t', { after: 5n, until: 5n, limit: 100 })).toEqual([]);
      expect(await plants().list('t', { until: 0n, limit: 100 })).toEqual([]);
    });

    it('walks a larger listing batch by batch without gaps or repeats', async () => {
      const all = Array.from({ length: 250 }, (_, i) => BigInt((i * 7919) % 250) - 125n);
      await createAll(
        't',
        all.map((id) => plant(id, 'p')),
      );
      const seen: bigint[] = [];
      let after: bigint | undefined;
      for (;;) {
        const batch = await plants().list('t', { after, limit: 64 });
        seen.push(...ids(batch));
        if (batch.length < 64) break;
        after = batch.at(-1)!.id;
      }
      expect(seen).toEqual([...all].sort((a, b) => (a < b ? -1 : 1)));
    });

    it('filters by one or several tags; untagged plants never match', async () => {
      await createAll('t', [
        plant(1n, 'a', 'red'),
        plant(2n, 'b'),
        plant(3n, 'c', 'blue'),
        plant(4n, 'd', 'red'),
        plant(5n, 'e', 'green'),
        plant(6n, 'f'),
        plant(7n, 'g', 'blue'),
        plant(8n, 'h', 'Red'),
      ]);
      expect(ids(await plants().list('t', { tags: ['red'], limit: 100 }))).toEqual([1n, 4n]);
      expect(ids(await plants().list('t', { tags: ['red', 'blue'], limit: 100 }))).toEqual([1n, 3n, 4n, 7n]);
      expect(ids(await plants().list('t', { tags: ['red', 'blue'], after: 1n, limit: 2 }))).toEqual([3n, 4n]);
      expect(ids(await plants().list('t', { tags: ['red', 'blue'], after: 1n, until: 6n, limit: 100 }))).toEqual([3n, 4n]);
      expect(await plants().list('t', { tags: ['purple'], limit: 100 })).toEqual([]);
      expect(await plants().list('t', { tags: [''], limit: 100 })).toEqual([]);
      // An empty tag list means no filter.
      expect(ids(await plants().list('t', { tags: [], limit: 100 }))).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
    });

    it('finds the id at an offset of a listing', async () => {
      await createAll('t', [plant(-5n, 'a', 'x'), plant(1n, 'b'), plant(2n, 'c', 'y'), plant(3n, 'd', 'x'), plant(9223372036854775807n, 'e', 'x')]);
      expect(await plants().idAtOffset('t', { offset: 0 })).toBe(-5n);
      expect(await plants().idAtOffset('t', { offset: 4 })).toBe(9223372036854775807n);
      expect(await plants().idAtOffset('t', { offset: 5 })).toBeUndefined();
      expect(await plants().idAtOffset('t', { after: 1n, offset: 1 })).toBe(3n);
      expect(await plants().idAtOffset('t', { after: 3n, offset: 1 })).toBeUndefined();
      expect(await plants().idAtOffset('t', { tags: ['x'], offset: 1 })).toBe(3n);
      expect(await plants().idAtOffset('t', { tags: ['x', 'y'], after: -5n, offset: 2 })).toBe(9223372036854775807n);
      expect(await plants().idAtOffset('t', { tags: ['x'], offset: 3 })).toBeUndefined();
      expect(await plants().idAtOffset('empty', { offset: 0 })).toBeUndefined();
    });

    it('isolates tenants: the same id in two tenants, each sees only its own', async () => {
      await plants().create('a', plant(1n, 'from a', 'x'), []);
      const inB = await plants().create('b', plant(1n, 'from b'), []);
      expect(inB.created).toBe(true);
      await plants().create('b', plant(2n, 'only b', 'x'), []);
      expect(await plants().get('a', 1n)).toEqual({ id: 1n, name: 'from a', tag: 'x' });
      expect(await plants().get('b', 1n)).toEqual({ id: 1n, name: 'from b' });
      expect(await plants().get('a', 2n)).toBeUndefined();
      expect(ids(await plants().list('a', { limit: 10 }))).toEqual([1n]);
      expect(ids(await plants().list('a', { tags: ['x'], limit: 10 }))).toEqual([1n]);
      expect(await plants().idAtOffset('a', { offset: 1 })).toBeUndefined();
      expect(await plants().delete('a', 2n)).toBe(false);
      expect(await plants().delete('a', 1n)).toBe(true);
      expect(await plants().get('b', 1n)).toEqual({ id: 1n, name: 'from b' });
      expect(await plants().list('c', { limit: 10 })).toEqual([]);
    });

    it('deletes idempotently, keeps the queued deliveries, and allows the id again', async () => {
      await plants().create('t', plant(1n, 'a'), [delivery('d1')]);
      await plants().create('t', plant(2n, 'b'), []);
      expect(await plants().delete('t', 1n)).toBe(true);
      expect(await plants().delete('t', 1n)).toBe(false);
      expect(await plants().get('t', 1n)).toBeUndefined();
      expect(ids(await plants().list('t', { limit: 10 }))).toEqual([2n]);
      expect((await storage().outbox.get('d1'))?.status).toBe('pending');
      expect(await plants().create('t', plant(1n, 'again'), [])).toEqual({ created: true, plant: { id: 1n, name: 'again' } });
    });

    it('does not overwrite an existing id: returns the stored plant and writes no deliveries', async () => {
      await plants().create('t', plant(7n, 'original', 'x'), [delivery('first')]);
      const again = await plants().create('t', plant(7n, 'other'), [delivery('second'), delivery('third')]);
      expect(again).toEqual({ created: false, plant: { id: 7n, name: 'original', tag: 'x' } });
      expect(await plants().get('t', 7n)).toEqual({ id: 7n, name: 'original', tag: 'x' });
      expect(await storage().outbox.get('second')).toBeUndefined();
      expect((await storage().outbox.list())!.map((d) => d.id)).toEqual(['first']);
    });

    it('writes a plant and all its deliveries in one go', async () => {
      await plants().create('t', plant(1n, 'a'), [delivery('d1'), delivery('d2', { endpointId: 'ep_other' })]);
      expect((await storage().outbox.get('d1'))?.endpointId).toBe('sub_receiver');
      expect((await storage().outbox.get('d2'))?.endpointId).toBe('ep_other');
    });

    it('is atomic: a create whose deliveries cannot be written leaves neither plant nor delivery', async () => {
      // Two deliveries with one id: the second insert fails after the plant and the first were written.
      await expect(plants().create('t', plant(1n, 'a'), [delivery('dup'), delivery('dup')])).rejects.toBeInstanceOf(StorageError);
      expect(await plants().get('t', 1n)).toBeUndefined();
      expect(await plants().list('t', { limit: 10 })).toEqual([]);
      expect(await storage().outbox.get('dup')).toBeUndefined();
      expect(await storage().outbox.list()).toEqual([]);

      // A delivery id clashing with a stored one fails the same way.
      await plants().create('t', plant(2n, 'b'), [delivery('taken')]);
      await expect(plants().create('t', plant(3n, 'c'), [delivery('fresh'), delivery('taken')])).rejects.toBeInstanceOf(StorageError);
      expect(await plants().get('t', 3n)).toBeUndefined();
      expect(await storage().outbox.get('fresh')).toBeUndefined();
      expect((await storage().outbox.list())!.map((d) => d.id)).toEqual(['taken']);

      // The storage is still usable afterwards.
      expect((await plants().create('t', plant(1n, 'a'), [delivery('dup')])).created).toBe(true);
      expect(ids(await plants().list('t', { limit: 10 }))).toEqual([1n, 2n]);
    });

    it('writes a plant as JSON exactly as it serializes (when it has getJson)', async () => {
      const repository = plants();
      if (repository.getJson === undefined) return;
      const stored = [
        plant(-9223372036854775808n, 'min', 'red'),
        plant(-2n, 'quote " backslash \\ tab \t newline \n control \u0001 end'),
        plant(3n, 'Monstera déliciosa 🌿 \u4e2d\u6587 \u2028 \u007f', 'ünïcødé'),
        plant(9007199254740993n, 'beyond 2^53', 'red'),
        plant(9223372036854775807n, 'max'),
      ];
      await createAll('t', stored);
      for (const { id } of stored) expect(await repository.getJson('t', id)).toBe(plantToJson((await repository.get('t', id))!));
      expect(await repository.getJson('t', 4n)).toBeUndefined();
      expect(await repository.getJson('other', 3n)).toBeUndefined();
    });

    it('writes a listing as JSON exactly as the plants it lists serialize (when it has listJson)', async () => {
      const repository = plants();
      if (repository.listJson === undefined) return;
      await createAll('t', [
        plant(-9223372036854775808n, 'min', 'red'),
        plant(-2n, 'quote " backslash \\ tab \t newline \n nul-free \u0001 end'),
        plant(3n, 'Monstera déliciosa 🌿 \u4e2d\u6587 \u2028 \u007f', 'ünïcødé'),
        plant(9007199254740993n, 'beyond 2^53', 'red'),
        plant(9223372036854775807n, 'max', 'blue'),
      ]);
      await createAll('other', [plant(5n, 'not mine')]);
      const queries: ListPlantsQuery[] = [
        { limit: 100 },
        { limit: 2 },
        { after: -2n, limit: 2 },
        { after: 3n, until: 9007199254740993n, limit: 10 },
        { tags: ['red'], limit: 10 },
        { tags: ['red'], limit: 1 },
        { tags: ['red', 'blue'], limit: 2 },
        { after: 3n, until: 9007199254740993n, limit: 1 },
        { tags: ['red', 'blue'], after: -9223372036854775808n, limit: 10 },
        { after: 9223372036854775807n, limit: 10 },
        { limit: 0 },
      ];
      for (const query of queries) {
        const listed = await repository.list('t', query);
        const more = (await repository.list('t', { ...query, limit: query.limit + 1 })).length > query.limit;
        const page = await repository.listJson('t', query);
        expect(
          page,
          JSON.stringify(query, (_, value) => (typeof value === 'bigint' ? String(value) : value)),
        ).toEqual({
          json: `[${listed.map(plantToJson).join(',')}]`,
          count: listed.length,
          lastId: listed.at(-1)?.id,
          more,
        });
      }
      expect((await repository.listJson('nobody', { limit: 10 })).json).toBe('[]');
    });
  });
}
