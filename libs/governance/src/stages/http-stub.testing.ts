import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** A real HTTP server on a free port answering JSON (a Presidio analyzer or a classifier in tests). */
export interface JsonServer {
  url: string;
  requests: unknown[];
  close(): Promise<void>;
}

export async function startJsonServer(handler: (body: unknown) => { status?: number; body: unknown; delayMs?: number; headers?: Record<string, string> }): Promise<JsonServer> {
  const requests: unknown[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as unknown) : undefined;
      requests.push({ path: req.url, body });
      const answer = handler(body);
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
