const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Calls `onFirst` on the first SIGTERM or SIGINT and `onSecond` on any later
 * one (an impatient operator pressing Ctrl-C twice). The handlers stay
 * installed for the life of the process; they do not keep the event loop alive.
 */
export function onShutdownSignal(onFirst: (signal: NodeJS.Signals) => void, onSecond: (signal: NodeJS.Signals) => void): void {
  let received = false;
  const handler = (signal: NodeJS.Signals) => {
    if (received) return onSecond(signal);
    received = true;
    onFirst(signal);
  };
  for (const signal of SIGNALS) process.on(signal, handler);
}
