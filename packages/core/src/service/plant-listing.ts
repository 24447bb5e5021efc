import type { Plant } from '../domain/plant.js';

/**
 * The result of a listing: the plants, delivered in batches so a caller can
 * stream millions without holding them, and the keyset cursor of the next page.
 */
export interface PlantListing {
  /** Set only when a `limit` was given and more plants remain: pass it as `after` for the next page. */
  readonly nextAfter?: bigint;
  /** The plants in ascending id order, batch by batch. Can be iterated once. */
  readonly batches: AsyncIterable<Plant[]>;
  /**
   * Set when the listing is one page already read (a `limit` up to the batch
   * size): the plants `batches` would yield, for callers that can use them at
   * once (the HTTP adapter answers from it without iterating).
   */
  readonly page?: readonly Plant[];
}

/** One page of a listing as JSON text (see `PlantService.listAsJson`). */
export interface PlantPageJson {
  /** The JSON array of the plants' wire form, in ascending id order. */
  readonly json: string;
  /** Set when more plants remain: pass it as `after` for the next page. */
  readonly nextAfter?: bigint;
}

/** Collects a listing into one array (for host apps and tests; HTTP streams instead). */
export async function collectListing(listing: PlantListing): Promise<Plant[]> {
  if (listing.page !== undefined) return [...listing.page];
  const plants: Plant[] = [];
  for await (const batch of listing.batches) plants.push(...batch);
  return plants;
}
