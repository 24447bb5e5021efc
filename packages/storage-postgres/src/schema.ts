/** A plants row; int8 arrives as bigint, so plant ids stay exact. */
export interface PlantRow {
  readonly id: bigint;
  readonly name: string;
  /** NULL when the plant has no tag. */
  readonly tag: string | null;
}
