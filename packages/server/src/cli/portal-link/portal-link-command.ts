import type { PlantStore } from '@plant-store/core';
import type { CliIo } from '../cli-io.js';
import { usageMistake } from '../command-args.js';
import { onOperatorStore, storageSettings } from '../webhooks/open-operator-store.js';
import { textTable } from '../webhooks/text-table.js';
import { parsePortalLinkArgs, type PortalLinkCommand } from './portal-link-args.js';
import { portalLinkUsage } from './portal-link-usage.js';

/**
 * `plant-store portal-link …`: mints, revokes and lists portal links in the
 * service's storage (chosen as for `serve`). Resolves with the exit status:
 * 0 done, 1 failure, 2 bad arguments or settings.
 */
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
  return onOperatorStore(settings, io, (store) => run(store, command, io));
}

async function run(store: PlantStore, command: Exclude<PortalLinkCommand, { kind: 'help' }>, io: CliIo): Promise<number> {
  switch (command.kind) {
    case 'mint': {
      const { tenant, readOnly, expiresInMs, baseUrl } = command;
      const link = await store.allTenants.portalLinks.mint({ tenant, readOnly, ...(expiresInMs !== undefined ? { expiresInMs } : {}) });
      io.stdout.write(`${baseUrl}/portal#token=${link.token}\n`);
      return 0;
    }
    case 'revoke':
      if (await store.allTenants.portalLinks.revoke(command.id)) return 0;
      io.stderr.write(`error: no live portal link with id ${command.id} (unknown or already revoked)\n`);
      return 1;
    case 'list': {
      const links = await store.allTenants.portalLinks.list(command.tenant);
      const time = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString());
      const rows = links.map((link) => [link.id, link.tenant, link.scopes.includes('webhooks:write') ? 'read-write' : 'read-only', time(link.expiresAt), time(link.revokedAt)]);
      io.stdout.write(textTable(['ID', 'TENANT', 'ACCESS', 'EXPIRES', 'REVOKED'], rows));
      return 0;
    }
  }
}
