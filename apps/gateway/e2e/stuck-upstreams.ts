import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, Socket } from 'node:net';

/** Two upstreams that never finish, for the deadline specs. */
export interface StuckUpstreams {
  /** Accepts TCP connections and never says a word: a TLS handshake to it (`https://`) never ends. */
  silentUrl: string;
  /** Sends a whole answer's headers and half its body, then nothing. */
  stallingUrl: string;
  /** When the stalling upstream last had a whole request (ms since the epoch; 0 before). */
  stalledAt(): number;
  close(): Promise<void>;
}

export async function startStuckUpstreams(): Promise<StuckUpstreams> {
  const sockets: Socket[] = [];
  let stalledAt = 0;
  const silent = createTcpServer((socket) => sockets.push(socket));
  const stalling = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      stalledAt = Date.now();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"id":"chatcmpl-stall","object":"chat.completion",');
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  return {
    silentUrl: `https://127.0.0.1:${(silent.address() as { port: number }).port}`,
    stallingUrl: `http://127.0.0.1:${(stalling.address() as { port: number }).port}`,
    stalledAt: () => stalledAt,
    async close() {
      for (const socket of sockets) socket.destroy();
      stalling.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
      await new Promise((resolve) => stalling.close(resolve));
    },
  };
}
