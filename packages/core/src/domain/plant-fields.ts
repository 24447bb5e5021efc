/** What the field table says about one plant field. */
export interface PlantField {
  /** `int64`: an exact signed 64-bit integer (the id); `text`: a string of 1 to `maxLength` characters (code points), without NUL or a lone surrogate. */
  readonly type: 'int64' | 'text';
  /** Longest value, in characters (code points); `text` fields only. */
  readonly maxLength?: number;
  /** May be left out; then absent everywhere (never null in JSON, NULL in SQL). */
  readonly optional?: true;
  /** The name of the field's schema in the OpenAPI document. @default the field name, capitalized */
  readonly schemaName?: string;
  /** What the field holds, for the OpenAPI document (text fields also state their length there). */
  readonly description?: string;
}

/**
 * The plant's fields, in the order they are written: the one description of
 * a plant. The schema, its fast path, the copy, the comparison of a retried
 * create, the wire JSON, the conflict message, the OpenAPI schemas, the SQL
 * storages' columns (a column per field, of the field's name) and their
 * SQL-built JSON are all derived from it. The id comes first and is the key.
 */
export const PLANT_FIELDS = {
  id: {
    type: 'int64',
    schemaName: 'PlantId',
    description:
      'Client-supplied id, unique per tenant, anywhere in the signed 64-bit range and exact to the last digit. Any JSON spelling of an integer is accepted (`20`, `20.0`, `2e1`; `-0` is 0); strings and non-integers are not.',
  },
  name: { type: 'text', maxLength: 256 },
  tag: { type: 'text', maxLength: 64, optional: true },
} as const satisfies Readonly<Record<string, PlantField>>;
