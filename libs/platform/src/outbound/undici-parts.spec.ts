import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as undici from 'undici';
import { Agent, buildConnector, undiciErrors } from './undici-parts';

const root = join(__dirname, '..', '..', '..', '..');

describe('undici parts', () => {
  it("are the very classes and functions undici's entry exports", () => {
    expect(Agent).toBe(undici.Agent);
    expect(buildConnector).toBe(undici.buildConnector);
    expect(undiciErrors).toBe(undici.errors);
  });

  it("serve a request without loading undici's entry, fetch, WebSocket or caches", () => {
    // A fresh process: here, this spec has loaded the whole of undici already.
    const script = `
      const http = require('node:http');
      const { Agent } = require('./libs/platform/src/outbound/undici-parts.ts');
      const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', async () => {
        const agent = new Agent();
        const { statusCode, body } = await agent.request({ origin: 'http://127.0.0.1:' + server.address().port, path: '/', method: 'GET' });
        const text = await body.text();
        const loaded = Object.keys(require.cache).filter((file) => file.includes('/node_modules/undici/'));
        console.log(JSON.stringify({
          statusCode, text,
          entry: loaded.some((file) => file.endsWith('/node_modules/undici/index.js')),
          web: loaded.filter((file) => /\\/undici\\/lib\\/(web|cache|mock)\\//.test(file)).length,
        }));
        await agent.close();
        server.close();
      });`;
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
      cwd: root,
      env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ statusCode: 200, text: 'ok', entry: false, web: 0 });
  });
});
