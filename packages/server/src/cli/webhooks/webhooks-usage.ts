import { SETTINGS } from '../../config/settings.js';

/** `plant-store webhooks --help`. */
export const webhooksUsage = `Usage:
  plant-store webhooks list [--status pending|delivered|failed|parked] [--endpoint <id>] [--tenant <tenant>] [--limit N] [--json]
  plant-store webhooks get <delivery-id> [--json]
  plant-store webhooks retry <delivery-id>
  plant-store webhooks resend <delivery-id>
  plant-store webhooks recover --endpoint <endpoint-id> --since <time>
  plant-store webhooks prune [--older-than DURATION]
  plant-store webhooks check [--repair] [--limit N] [--json]
  plant-store webhooks endpoints list [--limit N] [--after <endpoint-id>] [--json]
  plant-store webhooks endpoints disable <endpoint-id> [--reason TEXT]
  plant-store webhooks endpoints enable <endpoint-id> [--discard | --replay-since <time>]

Operator tools over the storage of the service (every tenant). A running
service sends what they queue within about a second.

list       deliveries, newest first, with tenant, event type, status,
           attempts and last result (--limit defaults to 100); --endpoint keeps those to one
           endpoint or subscription id, --tenant those to the tenant's own
           endpoints; a message held behind an earlier one about the same
           plant shows "waiting behind <message id>" as its next attempt;
           --status parked: those kept for a disabled endpoint
get        one delivery: its payload and every attempt with its status code,
           error and the start of the receiver's answer
           (--json: one line in the shapes of the HTTP API, with the tenant)
retry      puts a failed delivery back in the queue; its attempts so far
           count toward the retry schedule, so one whose retries ran out
           gets exactly one attempt (so do resend and recover)
resend     queues a delivery again whatever its state, with the same webhook-id
recover    queues again every failed delivery to a tenant endpoint created at
           or after --since: an RFC 3339 time (2026-01-02T03:04:05Z) or a
           duration ago (24h, 90m)
prune      deletes delivered, failed and parked deliveries (never pending
           ones), with their attempts, that finished (or were parked) more
           than --older-than ago (30d, 12h, 90m); by default ${SETTINGS.webhookRetention.env}
           (default: ${SETTINGS.webhookRetention.default}). A running service does this by itself.
check      finds messages that can never become due: held in a plant's line
           (an endpoint with ordering "plant") that has no message due or in
           flight, per endpoint and plant, with counts (--limit lines,
           default 100); exit 1 when it finds any. --repair makes each such
           line's first message due now, one line at a time, safe while the
           service runs (a line moving again by then is left alone);
           --json: one JSON array of the lines
endpoints  tenants' webhook endpoints: list them (ascending id, --limit
           defaults to 100; with their ordering, signature kind, custom
           header names (never the values), filter and DROPPED: parked
           messages dropped since it was disabled), disable one or
           enable it again. While disabled, its pending messages and the
           new events for it are kept (parked), up to
           ${SETTINGS.webhookParkedLimit.env} (default: ${SETTINGS.webhookParkedLimit.default})
           per endpoint, the oldest dropped past it (the storage reads the
           variable here too). Enabling replays them in order;
           --replay-since (a time or a duration ago, as for recover)
           replays those created since then and discards the older;
           --discard discards them all. Discarded ones end failed:
           recover can queue them again

Storage (as for plant-store serve; a flag wins over its variable):
  --storage sqlite|postgres         ${SETTINGS.storage.env} (default: ${SETTINGS.storage.default})
  --db FILE                         ${SETTINGS.db.env} (default: ${SETTINGS.db.default})
  --database-url URL                ${SETTINGS.databaseUrl.env}, for postgres
  --db-schema NAME                  ${SETTINGS.dbSchema.env} (default: ${SETTINGS.dbSchema.default})
  --db-pool N                       ${SETTINGS.dbPool.env} (default: ${SETTINGS.dbPool.default})
  -h, --help                        show this help
`;
