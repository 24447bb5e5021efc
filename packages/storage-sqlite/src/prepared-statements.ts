import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';

/** A statement by its SQL, prepared on its first use and kept. */
export type PreparedStatements = <Row = unknown>(sql: string) => Statement<unknown[], Row>;

export function preparedStatements(db: BetterSqlite3): PreparedStatements {
  const statements = new Map<string, Statement>();
  return <Row>(sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) statements.set(sql, (statement = db.prepare(sql)));
    return statement as Statement<unknown[], Row>;
  };
}
