import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * node:http's inactivity timeout fired on `socket`: closes it, as node:http would, when the silence is the client's (an
 * idle keep-alive connection, a response it stopped reading), but not while its answer is still being worked out. That
 * silence is the server's (a database stall), and a connection cut then leaves the client unable to tell whether its
 * write was applied. The wait stays bounded: an unfinished request by the headers and request timeouts, an answer by
 * the storage's own deadlines.
 */
export function handleSocketTimeout(socket: Socket): void {
  const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (response && !response.headersSent) return;
  socket.destroy();
}
