import sift from 'sift';
import * as v from 'valibot';
import { isJsonObject } from '../../domain/plant.js';
import { isInexactNumber, parseJson, stringifyJson } from '../../json/json-codec.js';

/**
 * An endpoint's filter: a MongoDB-style query over the event `{type, tenant, data}` (`data` is the body), of the operators
 * in {@link FILTER_OPERATORS} only. Integers are kept as `bigint`, so ids compare exactly.
 */
export type EndpointFilter = Readonly<Record<string, unknown>>;

/** What a filter is evaluated against: the event type, the tenant, and the body as parsed JSON. */
export interface FilterEvent {
  readonly type: string;
  readonly tenant: string;
  readonly data: unknown;
}

/** Longest filter, in bytes of its JSON text. */
export const ENDPOINT_FILTER_MAX_BYTES = 4096;
/** Deepest nesting of objects and arrays in a filter (the filter itself is 1). */
export const ENDPOINT_FILTER_MAX_DEPTH = 8;

/** Operators on a field. */
const FIELD_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$not'] as const;
/** Operators that join filters. */
const JOIN_OPERATORS = ['$and', '$or'] as const;
/** Every operator a filter may use; sift knows more (`$where`, `$regex`, …), which are refused before sift sees a filter. */
export const FILTER_OPERATORS: readonly string[] = Object.freeze([...FIELD_OPERATORS, ...JOIN_OPERATORS]);

const isNumeric = (value: unknown): value is number | bigint => typeof value === 'number' || typeof value === 'bigint';

/**
 * sift's `$gt` family compares only values of one JavaScript type; integers here are bigints and fractions numbers, which
 * JavaScript orders exactly against each other, so these let the two meet. Otherwise as sift's: same type, never null.
 */
type SiftOptions = Parameters<typeof sift.createEqualsOperation>[2];

const ordered = (test: (value: never, bound: never) => boolean) => (bound: unknown, ownerQuery: unknown, options: SiftOptions) =>
  sift.createEqualsOperation(
    (value: unknown) =>
      value != null && bound != null && (isNumeric(value) && isNumeric(bound) ? true : typeof value === typeof bound) && test(value as never, bound as never),
    ownerQuery,
    options,
  );

// Only these reach sift: a refused operator that slipped past validation would make sift throw, never run.
// sift is CommonJS: Node's ESM sees only its default export, which carries the operations.
const { $eq, $ne, $in, $nin, $exists, $not, $and, $or, createQueryTester } = sift;
const SIFT_OPERATIONS = {
  $eq,
  $ne,
  $gt: ordered((value, bound) => value > bound),
  $gte: ordered((value, bound) => value >= bound),
  $lt: ordered((value, bound) => value < bound),
  $lte: ordered((value, bound) => value <= bound),
  $in,
  $nin,
  $exists,
  $not,
  $and,
  $or,
};

/** The top-level names of an event a field path may start with. */
const EVENT_FIELDS = ['type', 'tenant', 'data'];

type Path = readonly string[];

/** A problem found in a filter, at the path of keys leading to it. */
class FilterProblem {
  constructor(
    readonly path: Path,
    readonly message: string,
  ) {}
}

const isScalar = (value: unknown) =>
  typeof value === 'string' || typeof value === 'boolean' || value === null || typeof value === 'bigint' || Number.isFinite(value) || isInexactNumber(value);

const SCALAR = 'must be a string, number, boolean or null';

/** The problem with a filter (`{path: condition}`, `$and`/`$or` of filters), or undefined; `depth` is the nesting so far. */
function filterProblem(filter: unknown, path: Path, depth: number): FilterProblem | undefined {
  if (depth > ENDPOINT_FILTER_MAX_DEPTH) return new FilterProblem(path, `nests deeper than ${ENDPOINT_FILTER_MAX_DEPTH} levels`);
  if (!isJsonObject(filter)) return new FilterProblem(path, 'must be an object of field paths and $and/$or');
  for (const [key, value] of Object.entries(filter)) {
    const at = [...path, key];
    if ((JOIN_OPERATORS as readonly string[]).includes(key)) {
      if (!Array.isArray(value) || value.length === 0) return new FilterProblem(at, 'must be a non-empty array of filters');
      for (const [index, item] of value.entries()) {
        const problem = filterProblem(item, [...at, String(index)], depth + 2);
        if (problem) return problem;
      }
    } else if (key.startsWith('$')) {
      return new FilterProblem(at, `is not an operator a filter may join with here (only $and and $or; on a field: ${FIELD_OPERATORS.join(', ')})`);
    } else {
      const problem = fieldPathProblem(key, at) ?? conditionProblem(value, at, depth + 1);
      if (problem) return problem;
    }
  }
  return undefined;
}

function fieldPathProblem(key: string, at: Path): FilterProblem | undefined {
  const segments = key.split('.');
  if (!EVENT_FIELDS.includes(segments[0]!)) return new FilterProblem(at, 'is not a field of the event: paths start with type, tenant or data');
  if (segments.some((segment) => segment === '' || segment.startsWith('$'))) {
    return new FilterProblem(at, 'is not a field path: dot-separated names, none empty or starting with $');
  }
  return undefined;
}

/** A field's condition: a scalar (equality) or an object of field operators. */
function conditionProblem(condition: unknown, at: Path, depth: number): FilterProblem | undefined {
  if (isScalar(condition)) return undefined;
  if (!isJsonObject(condition)) return new FilterProblem(at, `${SCALAR}, or an object of operators (${FIELD_OPERATORS.join(', ')})`);
  if (depth > ENDPOINT_FILTER_MAX_DEPTH) return new FilterProblem(at, `nests deeper than ${ENDPOINT_FILTER_MAX_DEPTH} levels`);
  const entries = Object.entries(condition);
  if (entries.length === 0) return new FilterProblem(at, 'must name at least one operator');
  for (const [operator, operand] of entries) {
    const problem = operandProblem(operator, operand, [...at, operator], depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function operandProblem(operator: string, operand: unknown, at: Path, depth: number): FilterProblem | undefined {
  switch (operator) {
    case '$eq':
    case '$ne':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return isScalar(operand) ? undefined : new FilterProblem(at, SCALAR);
    case '$in':
    case '$nin':
      if (!Array.isArray(operand)) return new FilterProblem(at, `must be an array of values (each ${SCALAR.slice(5)})`);
      for (const [index, item] of operand.entries()) if (!isScalar(item)) return new FilterProblem([...at, String(index)], SCALAR);
      return undefined;
    case '$exists':
      return typeof operand === 'boolean' ? undefined : new FilterProblem(at, 'must be true or false');
    case '$not':
      return isJsonObject(operand)
        ? conditionProblem(operand, at, depth)
        : new FilterProblem(at, `must be an object of operators (${FIELD_OPERATORS.join(', ')})`);
    default:
      return new FilterProblem(at, `is not an operator a filter may use (${FIELD_OPERATORS.join(', ')} on a field; $and, $or to join)`);
  }
}

/** Integers as `bigint` and other numbers as `number`, at any depth: the form both filters and events are compared in. */
function comparable(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (isInexactNumber(value)) return Number(value.toString());
  if (Array.isArray(value)) return value.map(comparable);
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, comparable(item)]));
  return value;
}

const FILTER_MESSAGE = `filter must be a JSON object of at most ${ENDPOINT_FILTER_MAX_BYTES} bytes: a query over {type, tenant, data}`;

/** A filter as given in a create or update, output in comparable form; a problem names its path under `filter`. */
export const endpointFilterSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, FILTER_MESSAGE),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    if (Buffer.byteLength(stringifyJson(dataset.value)) > ENDPOINT_FILTER_MAX_BYTES) return addIssue({ message: FILTER_MESSAGE });
    const problem = filterProblem(dataset.value, [], 1);
    if (!problem) return;
    const input = dataset.value;
    const path = problem.path.map((key) => ({ type: 'object' as const, origin: 'value' as const, input, key, value: undefined }));
    addIssue({ message: `${['filter', ...problem.path].join('.')} ${problem.message}`, path: path as unknown as [v.ObjectPathItem] });
  }),
  v.transform((filter) => comparable(filter) as EndpointFilter),
);

/** The filter's stored form: its JSON text (integers exact). */
export function filterText(filter: EndpointFilter): string {
  return stringifyJson(filter);
}

/** A stored filter back in comparable form. */
export function parseFilter(text: string): EndpointFilter {
  return comparable(parseJson(text)) as EndpointFilter;
}

/** Without a run of 16 digits every number of a body is one JSON.parse reads exactly (bodies are the service's own JSON). */
const MAY_LOSE_PRECISION = /\d{16}/;

/** The event a filter sees for a body (JSON text) of `type` in `tenant`. */
export function filterEvent(type: string, tenant: string, payload: string): FilterEvent {
  // Every write with a filtered endpoint parses its body: the lossless parser only where a number needs it.
  return { type, tenant, data: comparable(MAY_LOSE_PRECISION.test(payload) ? parseJson(payload) : JSON.parse(payload)) };
}

type Tester = (event: FilterEvent) => boolean;

/** Compiled filters by stored text: the same few filters are evaluated on every write of their tenants. */
const testers = new Map<string, Tester>();
/** Most compiled filters kept; past it the oldest is dropped (and compiled again when next used). */
const MAX_TESTERS = 10_000;

function tester(text: string): Tester {
  let compiled = testers.get(text);
  if (!compiled) {
    compiled = createQueryTester(parseFilter(text) as object, { operations: SIFT_OPERATIONS }) as Tester;
    if (testers.size >= MAX_TESTERS) testers.delete(testers.keys().next().value!);
    testers.set(text, compiled);
  }
  return compiled;
}

/**
 * Whether the event matches the filter (its stored JSON text, or the filter itself): an array field matches when it contains the
 * value. Evaluated by sift with the listed operators only, never by code built from the filter.
 */
export function matchesFilter(filter: EndpointFilter | string, event: FilterEvent): boolean {
  return tester(typeof filter === 'string' ? filter : filterText(filter))(event);
}
