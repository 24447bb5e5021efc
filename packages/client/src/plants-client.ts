import type { CallOptions, HttpTransport } from './http-transport.js';
import { fetchPage, followPages } from './paged-list.js';
import { plantFromJson, type NewPlant, type Plant } from './plant.js';
import { plantId, type PlantIdInput } from './plant-id.js';

export interface ListPlantsQuery {
  /** Page size (0 … 2147483647), followed by `list()`; without one the service streams every plant in one response. */
  readonly limit?: number;
  /** Only plants with an id greater than this (keyset pagination). */
  readonly after?: PlantIdInput;
  /** Only plants whose tag is one of these (exact match). */
  readonly tags?: readonly string[];
}

export interface ListPlantsOptions extends ListPlantsQuery, CallOptions {}

/** One page of plants, in ascending id order. `next` is the query of the next page, absent on the last one. */
export interface PlantPage {
  readonly plants: Plant[];
  readonly next?: ListPlantsQuery & { readonly after: bigint };
}

/** `client.plants`: the plants of the token's tenant. */
export interface PlantsClient {
  /** Creates a plant and returns it as stored. Retry-safe: the same id, name and tag again returns the plant; other content is a `ConflictError`. */
  create(plant: NewPlant, options?: CallOptions): Promise<Plant>;
  /** The plant with this id; `NotFoundError` when the tenant has none. */
  get(id: PlantIdInput, options?: CallOptions): Promise<Plant>;
  /** Deletes the plant; `NotFoundError` when the tenant has none. */
  delete(id: PlantIdInput, options?: CallOptions): Promise<void>;
  /** Every matching plant in ascending id order, as it arrives: page by page along `Link` with `limit`, else in one streamed response. */
  list(options?: ListPlantsOptions): AsyncGenerator<Plant, void, undefined>;
  /** One page (all plants when there is no `limit`); pass `page.next` to get the one after it. */
  listPage(options?: ListPlantsOptions): Promise<PlantPage>;
}

/** The query of the next page from its Link (the service always puts `after` in it). */
function nextPlantsQuery(query: URLSearchParams): PlantPage['next'] {
  const after = query.get('after');
  if (after === null || !/^-?\d+$/.test(after)) return undefined;
  const limit = query.get('limit');
  const tags = query.getAll('tag');
  return { after: BigInt(after), ...(limit === null ? {} : { limit: Number(limit) }), ...(tags.length > 0 ? { tags } : {}) };
}

export function plantsClient(transport: HttpTransport): PlantsClient {
  const listUrl = ({ limit, after, tags }: ListPlantsQuery) =>
    transport.url('/plants', { limit, after: after === undefined ? undefined : plantId(after, 'after'), tag: tags });

  return {
    // async throughout: an id refused before sending rejects like every other failure, never throws synchronously.
    async create(plant, options) {
      const body = { ...plant, id: plantId(plant.id) };
      return transport.sendForJson('POST', transport.url('/plants'), plantFromJson, { ...options, body });
    },
    async get(id, options) {
      return transport.sendForJson('GET', transport.url(`/plants/${plantId(id)}`), plantFromJson, options);
    },
    async delete(id, options) {
      await transport.sendAndDiscard('DELETE', transport.url(`/plants/${plantId(id)}`), options);
    },
    async *list(options = {}) {
      yield* followPages(transport, listUrl(options), plantFromJson, options.signal);
    },
    async listPage(options = {}) {
      return fetchPage(transport, listUrl(options), 'plants', plantFromJson, nextPlantsQuery, options.signal);
    },
  };
}
