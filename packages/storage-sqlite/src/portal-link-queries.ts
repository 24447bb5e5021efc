/* SQL of the portal link repository (better-sqlite3 positional parameters). */

const COLUMNS = 'id, tenant, scopes, secret_sha256, created_at, expires_at, revoked_at';

/** Parameters: id, tenant, scopes (space-separated), secret digest, created at, expires at. */
export const INSERT_PORTAL_LINK = 'INSERT INTO portal_links (id, tenant, scopes, secret_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)';

/** Parameters: id. */
export const SELECT_PORTAL_LINK = `SELECT ${COLUMNS} FROM portal_links WHERE id = ?`;

/** Parameters: at, id. Only a link not revoked yet: a second revoke keeps the first time. */
export const REVOKE_PORTAL_LINK = 'UPDATE portal_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL';

/** Parameters: tenant. Newest first. */
export const LIST_TENANT_PORTAL_LINKS = `SELECT ${COLUMNS} FROM portal_links WHERE tenant = ? ORDER BY created_at DESC, id DESC`;

/** No parameters: every tenant's links, newest first. */
export const LIST_PORTAL_LINKS = `SELECT ${COLUMNS} FROM portal_links ORDER BY created_at DESC, id DESC`;
