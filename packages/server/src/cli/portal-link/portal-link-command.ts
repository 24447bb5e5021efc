import type { PlantStore } from '@plant-store/core';
import type { CliIo } from '../cli-io.js';
import { usageMistake } from '../command-args.js';
import { onOperatorStore, storageSettings } from '../webhooks/open-operator-store.js';
import { textTable } from '../webhooks/text-table.js';
import { loadConfig } from '../../config/load-config.js';
import { SETTINGS, settingName } from '../../config/settings.js';
import { parsePortalLinkArgs, type PortalLinkCommand } from './portal-link-args.js';
import { portalLinkUsage } from './portal-link-usage.js';

/** `plant-store portal-link …`: mints, revokes and lists portal links. Exit status 0 done, 1 failure, 2 bad arguments or settings. */
export async function runPortalLinkCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parsePortalLinkArgs>;
  let settings: ReturnType<typeof storageSettings>;
  try {
    parsed = parsePortalLinkArgs(args, env);
    if (parsed.command.kind === 'help') {
      io.stdout.write(portalLinkUsage);
      return 0;
    }
    settings = storageSettings(parsed.storage, env);
  } catch (error) {
    return usageMistake(error, 'portal-link', io);
  }
  const command = parsed.command;
  return onOperatorStore(settings, io, (store) => run(store, command, io, env));
}

async function run(store: PlantStore, command: Exclude<PortalLinkCommand, { kind: 'help' }>, io: CliIo, env: NodeJS.ProcessEnv): Promise<number> {
  switch (command.kind) {
    case 'mint': {
      const { tenant, readOnly, expiresInMs, baseUrl } = command;
      const link = await store.allTenants.portalLinks.mint({ tenant, readOnly, ...(expiresInMs !== undefined ? { expiresInMs } : {}) });
      io.stdout.write(`${baseUrl}/portal#token=${link.token}\n`);
      if (!(await tenantKnown(store, tenant, env))) {
        io.stderr.write(
          `warning: tenant ${tenant} has no webhook endpoint, nor a token in ${settingName('tokens')} or ${settingName('tokensFile')} here: check its spelling (the link works all the same)\n`,
        );
      }
      return 0;
    }
    case 'revoke':
      if (await store.allTenants.portalLinks.revoke(command.id)) {
        io.stdout.write(`revoked portal link ${command.id}\n`);
        return 0;
      }
      io.stderr.write(`error: no live portal link with id ${command.id} (unknown or already revoked)\n`);
      return 1;
    case 'list': {
      const links = await store.allTenants.portalLinks.list(command.tenant);
      const time = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString());
      const rows = links.map((link) => [
        link.id,
        link.tenant,
        link.scopes.includes('webhooks:write') ? 'read-write' : 'read-only',
        time(link.expiresAt),
        time(link.revokedAt),
      ]);
      io.stdout.write(textTable(['ID', 'TENANT', 'ACCESS', 'EXPIRES', 'REVOKED'], rows));
      return 0;
    }
  }
}

/** Whether the tenant has an endpoint, or a static token in this environment's settings (a typo has neither; JWT tenants are not known here). */
async function tenantKnown(store: PlantStore, tenant: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const reader = { subject: 'plant-store portal-link', tenant, scopes: ['webhooks:read'] as const };
  if ((await store.webhooks.endpoints.list(reader, { limit: 1 })).endpoints.length > 0) return true;
  const tokenEnv = Object.fromEntries(
    [SETTINGS.tokens.env, SETTINGS.tokensFile.env].filter((name) => env[name] !== undefined).map((name) => [name, env[name]]),
  );
  try {
    return loadConfig({ help: false, values: {} }, tokenEnv).tokens.some((entry) => entry.tenant === tenant);
  } catch {
    return false; // an unreadable tokens file is serve's to report
  }
}
