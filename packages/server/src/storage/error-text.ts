/** One line describing a driver or system error: its code (when the message lacks it) and message. */
export function errorText(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).replace(/\s+/g, ' ');
}
