import type { AttributeValue, SpanKind } from '@opentelemetry/api';
import { samePairs } from './encoded-attributes.js';

/**
 * What a span's encoding repeats from the spans of its kind before it:
 * everything but its ids and times. A request's spans come in a few
 * shapes (one per route, method and status; one per storage call), and
 * two spans of one shape differ in their trace, span and parent ids and
 * their start and end times only, which sit at the same offsets of
 * encodings of the same length. So the first span of a shape is encoded
 * field by field and kept as the shape's template, and each span after it
 * is the template copied with its own ids and times written over.
 */
export interface SpanShape {
  readonly name: string;
  readonly kind: SpanKind;
  /** No parent, a parent in this process, or a remote one: each gives other fields (4) and flags (16). */
  readonly parent: ParentPlace;
  readonly pairs: readonly (string | AttributeValue)[];
  /** The whole encoded span, field 2 of `ScopeSpans` with its key and length. */
  readonly template: Uint8Array;
  /** Where in `template` the trace id's 16 bytes start (the span id's 8 follow after their key and length, then the parent's). */
  readonly idsAt: number;
  /** Where in `template` the start time's 8 bytes start (the end time's follow after their key). */
  readonly timesAt: number;
}

/** Where a span's parent is: none (0), in this process (1), in another (2). */
export type ParentPlace = 0 | 1 | 2;

// Bounded both ways, as the kept attribute runs are: a name whose attributes keep changing fills its places and is
// encoded field by field after that; spans with ever new names fill the names' places.
const SHAPES_PER_NAME = 16;
const NAMES_KEPT = 64;
const shapes = new Map<string, SpanShape[]>();

/** The kept shape of a span with this name, kind, parent place and attributes, if there is one. */
export function shapeOf(name: string, kind: SpanKind, parent: ParentPlace, pairs: readonly (string | AttributeValue)[]): SpanShape | undefined {
  const kept = shapes.get(name);
  if (kept === undefined) return undefined;
  for (let index = 0; index < kept.length; index++) {
    const shape = kept[index]!;
    if (shape.kind === kind && shape.parent === parent && samePairs(shape.pairs, pairs)) return shape;
  }
  return undefined;
}

/** Keeps `shape`, if there is room for it. */
export function keepShape(shape: SpanShape): void {
  const kept = shapes.get(shape.name);
  if (kept === undefined) {
    if (shapes.size < NAMES_KEPT) shapes.set(shape.name, [shape]);
  } else if (kept.length < SHAPES_PER_NAME) {
    kept.push(shape);
  }
}
