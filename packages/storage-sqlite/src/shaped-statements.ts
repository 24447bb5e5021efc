/** Prepared statements of a query whose SQL depends on its shape (how many tag filters, which optional filters), by shape number. */
export type ShapedStatements<S> = Map<number, S>;

/**
 * The statement of one shape, prepared on its first use and kept, so a call
 * costs a map lookup, never a prepare, once its shape was seen. Equal keys
 * must mean equal SQL. A plain function over the map: measured cheaper on
 * the listing path than a closure holding the map.
 */
export function shapedStatement<S>(statements: ShapedStatements<S>, key: number, prepare: () => S): S {
  let statement = statements.get(key);
  if (statement === undefined) statements.set(key, (statement = prepare()));
  return statement;
}
