import type { Tables } from './tables.js';

/* SQL of the portal link repository, built once per storage. */

const COLUMNS = 'id, tenant, scopes, secret_sha256, created_at, expires_at, revoked_at';

/** Parameters: id, tenant, scopes (text[]), secret digest, created at, expires at. */
export const insertPortalLinkSql = (t: Tables) => `
  INSERT INTO ${t.portalLinks} (id, tenant, scopes, secret_sha256, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`;

/** Parameters: id. */
export const selectPortalLinkSql = (t: Tables) => `SELECT ${COLUMNS} FROM ${t.portalLinks} WHERE id = $1`;

/** Parameters: id, at. Only a link not revoked yet: a second revoke keeps the first time. */
export const revokePortalLinkSql = (t: Tables) => `UPDATE ${t.portalLinks} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`;

/** Parameters: tenant (NULL: every tenant). Newest first. */
export const listPortalLinksSql = (t: Tables) => `
  SELECT ${COLUMNS} FROM ${t.portalLinks} WHERE ($1::text IS NULL OR tenant = $1) ORDER BY created_at DESC, id DESC`;
