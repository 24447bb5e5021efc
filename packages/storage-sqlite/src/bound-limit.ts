/**
 * A row limit bound when the statement runs, as SQL: `LIMIT ${BOUND_LIMIT}`.
 *
 * Not a bare `?`. SQLite (3.5x) reads the value bound to a bare `LIMIT ?`
 * while it plans, and so marks the statement to be planned again whenever
 * that parameter is bound, which better-sqlite3 does on every run: each
 * listing was parsed and planned anew, more than doubling the cost of a
 * page of 20 plants. The planner does not look through a CAST, so the
 * statement is planned once, as for any other parameter.
 */
export const BOUND_LIMIT = 'CAST(? AS INTEGER)';
