/** One line for stderr: the error's message on a single line, so scripts and log collectors see one record. */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${message.replace(/\s*[\r\n]+\s*/g, ' ').trim()}\n`;
}
