/** Prepared statements of a query whose SQL depends on its shape (how many tag filters, which optional filters), by shape number. */
export type ShapedStatements<S> = Map<number, S>;

/** The statement of one shape, prepared on its first use and kept. Equal keys must mean equal SQL. */
export function shapedStatement<S>(statements: ShapedStatements<S>, key: number, prepare: () => S): S {
  let statement = statements.get(key);
  if (statement === undefined) statements.set(key, (statement = prepare()));
  return statement;
}
