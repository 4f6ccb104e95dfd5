// The baseline: a bare undici passthrough proxy with no auth, no governance, no metering.
import { createServer } from 'node:http';
import { Agent } from 'undici';

const [, , portArg, upstream] = process.argv;
const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
const origin = new URL(upstream).origin;

createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const answer = await agent.request({
      origin,
      path: req.url,
      method: req.method,
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json', authorization: req.headers.authorization ?? '' },
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  } catch (error) {
    res.writeHead(502).end(String(error));
  }
}).listen(Number(portArg), '127.0.0.1', () => process.stdout.write(`bare proxy on ${portArg}\n`));
