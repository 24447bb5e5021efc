/**
 * A row limit bound when the statement runs, as SQL: `LIMIT ${BOUND_LIMIT}`. Not a bare `?`: SQLite plans a
 * statement again whenever the value of a bare `LIMIT ?` is bound (every run); it does not look through a CAST.
 */
export const BOUND_LIMIT = 'CAST(? AS INTEGER)';
