import type { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { handleSocketTimeout } from './handle-socket-timeout.js';

function silentSocket(response?: { headersSent: boolean }): { socket: Socket; destroy: ReturnType<typeof vi.fn> } {
  const destroy = vi.fn();
  return { socket: { _httpMessage: response ?? null, destroy } as unknown as Socket, destroy };
}

describe('handleSocketTimeout', () => {
  it('closes an idle connection', () => {
    const { socket, destroy } = silentSocket();
    handleSocketTimeout(socket);
    expect(destroy).toHaveBeenCalledOnce();
  });

  it('closes a connection whose client stopped reading a response under way', () => {
    const { socket, destroy } = silentSocket({ headersSent: true });
    handleSocketTimeout(socket);
    expect(destroy).toHaveBeenCalledOnce();
  });

  it('keeps a connection whose answer is still being worked out', () => {
    const { socket, destroy } = silentSocket({ headersSent: false });
    handleSocketTimeout(socket);
    expect(destroy).not.toHaveBeenCalled();
  });
});
