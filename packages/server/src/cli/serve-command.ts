import { ConfigurationError } from '@plant-store/core';
import { loadConfig, parseServeArgs, type ServeConfig } from '../config/load-config.js';
import type { ServeHandle } from '../serve.js';
import type { CliIo } from './cli-io.js';
import { errorLine } from './error-line.js';
import { fileReloads } from './file-reloads.js';
import { onShutdownSignal } from './shutdown-signals.js';
import { serveUsage } from './usage.js';

// Beyond the HTTP grace period: with the default 7 s the process exits within the 10 s `docker stop` waits before SIGKILL.
const STOP_MARGIN_MS = 2_000;

/** `plant-store serve`: resolves with the exit status once stopped: 0 after a graceful stop, 2 for bad configuration, 1 otherwise. */
export async function runServeCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let handle: ServeHandle | undefined;
  let config: ServeConfig;
  let reloads: ReturnType<typeof fileReloads> | undefined;
  try {
    const parsed = parseServeArgs(args);
    if (parsed.help) {
      io.stdout.write(serveUsage);
      return 0;
    }
    config = loadConfig(parsed, env);
    reloads = fileReloads(config, parsed, env);
    // Loaded only once the configuration is valid: a typo is reported without opening the storage drivers.
    const { serve } = await import('../serve.js');
    handle = await serve(config, { stdout: io.stdout, stderr: io.stderr, env });
    reloads.serving(handle);
  } catch (error) {
    reloads?.stop();
    io.stderr.write(errorLine(error));
    return error instanceof ConfigurationError ? 2 : 1;
  }

  try {
    return await untilStopped(handle, config.shutdownTimeoutMs, io);
  } finally {
    reloads.stop();
  }
}

/** 0 after a graceful stop on the first SIGTERM/SIGINT; 1 when stopping fails, is late, or a second signal arrives. */
function untilStopped(running: ServeHandle, shutdownTimeoutMs: number, io: CliIo): Promise<number> {
  return new Promise<number>((resolveExit) => {
    let finished = false;
    const finish = (status: number) => {
      finished = true;
      resolveExit(status);
    };
    const stop = () => {
      const watchdog = setTimeout(() => {
        io.stderr.write('error: shutdown did not finish in time; exiting\n');
        finish(1);
      }, shutdownTimeoutMs + STOP_MARGIN_MS);
      running
        .close()
        .then(
          () => finish(0),
          (error: unknown) => {
            io.stderr.write(errorLine(error));
            finish(1);
          },
        )
        .finally(() => clearTimeout(watchdog));
    };
    // The handlers stay installed, so a late second signal cannot kill a process already on its way out.
    onShutdownSignal(stop, () => {
      if (finished) return;
      io.stderr.write('error: second signal; exiting without waiting for in-flight work\n');
      finish(1);
    });
  });
}
