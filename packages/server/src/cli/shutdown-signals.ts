const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** `onFirst` on the first SIGTERM or SIGINT, `onSecond` on any later one; the handlers stay for the life of the process. */
export function onShutdownSignal(onFirst: (signal: NodeJS.Signals) => void, onSecond: (signal: NodeJS.Signals) => void): void {
  let received = false;
  const handler = (signal: NodeJS.Signals) => {
    if (received) return onSecond(signal);
    received = true;
    onFirst(signal);
  };
  for (const signal of SIGNALS) process.on(signal, handler);
}
