import { SETTINGS, type SettingDefinition } from '../config/settings.js';

/** `plant-store --help`. */
export const mainUsage = `Usage: plant-store <command> [options]

Commands:
  serve       run the Plant Store HTTP service (plant-store serve --help)
  webhooks    inspect and re-queue webhook deliveries, check that every delivery
              line can drain, manage tenants' endpoints (plant-store webhooks --help)
  backup      copy the SQLite database of a running service to a new file
              (plant-store backup --help)
  portal-link mint, list or revoke sign-in links to a tenant's webhook portal
              (plant-store portal-link --help)
  migrations  print the SQL of the storage's migrations, for an app that
              migrates its own way (plant-store migrations --help)

Options:
  -h, --help     show this help
  -v, --version  print the version
`;

/** `plant-store serve --help`, generated from the settings table so it cannot drift. */
export const serveUsage = (() => {
  const rows = Object.values(SETTINGS as Record<string, SettingDefinition>).map((setting) => {
    const fallback = setting.default === undefined ? '' : ` (default: ${setting.default})`;
    return `  --${setting.flag} <value>\n      ${setting.env}: ${setting.help}${fallback}`;
  });
  return `Usage: plant-store serve [options]

Every option can also be set with its environment variable; a flag wins over
its variable. Without tokens, a development token is created and printed
(outside NODE_ENV=production, which refuses to start instead).

Options:
${rows.join('\n')}
  -h, --help
      show this help
`;
})();
