import { statSync, unwatchFile, watchFile } from 'node:fs';
import { loadTokenSettings, loadWebhookSubscriptions, type ServeArgs, type ServeConfig } from '../config/load-config.js';
import type { ReloadSources, ServeHandle } from '../serve.js';

const FILE_POLL_MS = 1_000;

/** What tells a changed file from the same one: an edit changes its time or size, a replacement by rename its inode. */
type FileState = { readonly mtimeMs: number; readonly ino: number; readonly size: number } | undefined;

/**
 * Reloads the tokens file and the webhooks file when each changes (that file alone) and on SIGHUP (both). Installed
 * before the service starts, so nothing is missed while storage opens or migrates: what comes then is queued and
 * applied once `serving` is called.
 */
export function fileReloads(config: ServeConfig, args: ServeArgs, env: NodeJS.ProcessEnv): { serving(handle: ServeHandle): void; stop(): void } {
  const sources = { tokens: () => loadTokenSettings(args, env), webhooks: () => loadWebhookSubscriptions(args, env) };
  let handle: ServeHandle | undefined;
  const queued = new Map<string, ReloadSources>();
  const reload = (read: ReloadSources, trigger: string) => (handle ? handle.reload(read, trigger) : queued.set(trigger, read));
  // SIGHUP (a terminal closing, an operator after editing a file) ends a process by default: from now on it reloads.
  const onHangup = () => reload(sources, 'SIGHUP');
  process.on('SIGHUP', onHangup);
  const files: { path: string; read: ReloadSources }[] = [];
  if (config.tokensFile !== undefined) files.push({ path: config.tokensFile, read: { tokens: sources.tokens } });
  if (config.webhooksFile !== undefined) files.push({ path: config.webhooksFile, read: { webhooks: sources.webhooks } });
  const loaded = new Map(files.map(({ path }) => [path, fileState(path)]));
  const watchers = files.map(({ path, read }) => {
    // Polling the file's status catches edits and replacements by rename (as editors and Kubernetes make) alike.
    const onPoll = (now: FileState, before: FileState) => {
      if (changed(now, before)) reload(read, `${path} changed`);
    };
    watchFile(path, { persistent: false, interval: FILE_POLL_MS }, onPoll);
    return { path, onPoll };
  });
  return {
    serving(started) {
      // The watcher compares with its own first look, taken a moment after the configuration was read: check that moment too.
      for (const { path, read } of files) if (changed(fileState(path), loaded.get(path))) queued.set(`${path} changed`, read);
      handle = started;
      for (const [trigger, read] of queued) started.reload(read, `${trigger} during start-up`);
      queued.clear();
    },
    // A stopped service (or one that never started) reloads nothing, and leaves no watcher in a host process running the CLI in-process.
    stop() {
      process.off('SIGHUP', onHangup);
      for (const { path, onPoll } of watchers) unwatchFile(path, onPoll);
      handle = undefined;
      queued.clear();
    },
  };
}

function fileState(path: string): FileState {
  try {
    const { mtimeMs, ino, size } = statSync(path);
    return { mtimeMs, ino, size };
  } catch {
    return undefined; // gone: any file there later is a change
  }
}

function changed(now: FileState, before: FileState): boolean {
  return now?.mtimeMs !== before?.mtimeMs || now?.ino !== before?.ino || now?.size !== before?.size;
}
