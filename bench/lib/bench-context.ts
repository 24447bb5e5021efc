import type { BenchOptions } from './bench-options.js';
import type { ServerConfig, ServerLauncher } from './server-launcher.js';

/** What every scenario gets from the runner. */
export interface BenchContext {
  readonly options: BenchOptions;
  readonly launcher: ServerLauncher;
  /** Temporary folder for databases; removed after the run. */
  readonly workDir: string;
  /** The CPU every server runs on (`--pin on`); any CPU when not given. */
  readonly serverCpu?: number;
  /** Progress line on stderr. */
  log(message: string): void;
  /** Node flags that make a server write a CPU profile into its own folder `name` (none without `--cpu-prof`). */
  profile(name: string): Pick<ServerConfig, 'nodeFlags'>;
}
