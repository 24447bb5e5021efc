/** `plant-store portal-link --help`. */
export const portalLinkUsage = `Usage: plant-store portal-link --tenant <tenant> [--read-only] [--expires <duration>] [--base-url <url>]
       plant-store portal-link --revoke <link-id>
       plant-store portal-link --list [--tenant <tenant>]

Mints a sign-in link to the tenant webhook portal and prints it as one line,
<base-url>/portal#token=psl_… . The token is in the URL fragment, which the
browser never sends to a server. A link works for one tenant's webhooks
only (read and manage; with --read-only, read), never its plants, until it
expires or is revoked. Give it only to that tenant. A tenant with no
webhook endpoint and no token in PLANT_STORE_TOKENS or the tokens file gets
its link with a warning (a typo, perhaps).

Options:
  --tenant <tenant>       the tenant the link signs in to
  --read-only             the link may only read (scope webhooks:read)
  --expires <duration>    how long the link works, e.g. 30m, 1h, 2d (default 1h, at most 7d)
  --base-url <url>        where tenants reach the service, with its base path
                          (default PLANT_STORE_PUBLIC_URL, else http://<HOST>:<PORT>
                          from the same variables as serve; required when PORT
                          is not set or HOST listens everywhere, 0.0.0.0 or ::)
  --revoke <link-id>      refuse the link's token from now on (the id is printed by --list)
  --list                  the links (of --tenant, else of every tenant), newest first

The storage is chosen as for serve: PLANT_STORE_STORAGE, PLANT_STORE_DB,
PLANT_STORE_DATABASE_URL, PLANT_STORE_DB_SCHEMA, PLANT_STORE_DB_POOL or
--storage, --db, --database-url, --db-schema, --db-pool.

Exit status: 0 done, 1 failure (unknown or already revoked link, unreadable
storage), 2 bad arguments or settings.
`;
