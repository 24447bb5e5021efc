/**
 * The statements of a query whose SQL depends on its shape (how many tag
 * filters, which optional filters): each shape is prepared on its first use
 * and kept, so a call costs a map lookup, never a prepare, once its shape
 * was seen. `key` numbers the shapes (equal keys, equal SQL).
 */
export function shapedStatements<Shape, S>(key: (shape: Shape) => number, prepare: (shape: Shape) => S): (shape: Shape) => S {
  const statements = new Map<number, S>();
  return (shape) => {
    const k = key(shape);
    let statement = statements.get(k);
    if (statement === undefined) statements.set(k, (statement = prepare(shape)));
    return statement;
  };
}
