// Per-tenant arrays sorted by bigint id, as the memory baselines keep their
// plants (like the memory adapter).

/** First position whose id is ≥ id (`strict`: > id). */
export function bound(items: readonly { readonly id: bigint }[], id: bigint, strict: boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const current = items[middle]!.id;
    if (current < id || (strict && current === id)) low = middle + 1;
    else high = middle;
  }
  return low;
}
