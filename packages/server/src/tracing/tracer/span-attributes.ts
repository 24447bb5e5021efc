import { diag, type Attributes, type AttributeValue } from '@opentelemetry/api';

/**
 * Whether `value` is one the OpenTelemetry API allows as an attribute: a
 * string, number or boolean, or an array of one of those kinds (where
 * `null` and `undefined` may stand for missing items).
 */
export function isAttributeValue(value: unknown): value is AttributeValue {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (!Array.isArray(value)) return false;
  let kind: string | undefined;
  for (const item of value as unknown[]) {
    if (item === null || item === undefined) continue;
    const itemType = typeof item;
    if (itemType !== 'string' && itemType !== 'number' && itemType !== 'boolean') return false;
    if (kind !== undefined && itemType !== kind) return false;
    kind = itemType;
  }
  return true;
}

/** `value` as a span keeps it: cut to the value length limit unless there is none (the common case, nothing to look at). */
export function keptValue(value: AttributeValue, lengthLimit: number): AttributeValue {
  return lengthLimit === Number.POSITIVE_INFINITY ? value : truncated(value, lengthLimit);
}

/** `value` with its strings cut to `limit` characters (the value length limit). */
export function truncated(value: AttributeValue, limit: number): AttributeValue {
  if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => (typeof item === 'string' && item.length > limit ? item.slice(0, limit) : item)) as AttributeValue;
  return value;
}

/**
 * `attributes` as a span keeps them (key, value, key, value…, strings cut
 * to `lengthLimit`); `undefined` when a span would drop or report
 * any of them (over `countLimit`, an invalid value, an empty key), which
 * only setting them one by one does as the SDK does.
 */
export function attributePairs(attributes: Attributes, countLimit: number, lengthLimit: number): readonly (string | AttributeValue)[] | undefined {
  const keys = Object.keys(attributes);
  if (keys.length > countLimit) return undefined;
  const pairs: (string | AttributeValue)[] = [];
  for (const key of keys) {
    const value: unknown = attributes[key];
    if (key === '' || !isAttributeValue(value)) return undefined;
    pairs.push(key, keptValue(value, lengthLimit));
  }
  // Not frozen: a frozen array is another kind of elements to V8, which would make every read of a span's attributes
  // handle two kinds. Spans that share it copy it before a change (see RecordedSpan).
  return pairs;
}

/** The valid attributes of `attributes`, for an event or a link (within the limits, as the SDK keeps them); invalid ones are reported and left out. */
export function sanitized(attributes: Attributes | undefined, countLimit: number, lengthLimit: number): { attributes: Attributes; dropped: number } {
  const kept: Attributes = {};
  let count = 0;
  let dropped = 0;
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value: unknown = attributes[key];
    if (key === '' || !isAttributeValue(value)) {
      diag.warn('an attribute with an invalid value or an empty key was ignored', key);
      continue;
    }
    if (count >= countLimit) {
      dropped++;
      continue;
    }
    kept[key] = truncated(value, lengthLimit);
    count++;
  }
  return { attributes: kept, dropped };
}
