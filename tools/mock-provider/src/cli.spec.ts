import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { mockReply } from './index';
import { getJson, OPENAI_HEADERS, postJson } from './spec-helpers';

const ROOT = join(__dirname, '..', '..', '..');

/** Starts the CLI the way the benchmark does and resolves with the printed URL. */
function startCli(args: string[]): { child: ChildProcess; url: Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'tools/mock-provider/src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /mock-provider listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => reject(new Error(`cli exited before listening: ${output}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, exit };
}

describe('mock provider CLI (node -r @swc-node/register)', () => {
  let cli: ReturnType<typeof startCli> | undefined;

  afterAll(async () => {
    if (cli && cli.child.exitCode === null) {
      cli.child.kill('SIGTERM');
      await cli.exit;
    }
  });

  it('starts on the given port, prints its URL, serves requests and stops on SIGTERM', async () => {
    cli = startCli(['--port', '0', '--no-record']);
    const url = await cli.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const completion = await postJson(`${url}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'cli' }] }, OPENAI_HEADERS);
    expect(completion.status).toBe(200);
    expect(completion.json).toMatchObject({ choices: [{ message: { content: mockReply('cli') } }] });
    const record = await getJson(`${url}/__mock/requests`);
    expect(record.json).toMatchObject({ count: 0, total: 1 });

    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(0);
  }, 30_000);

  it('exits with an error on an unknown option', async () => {
    const bad = startCli(['--bogus']);
    await expect(bad.url).rejects.toThrow('unknown option --bogus');
    expect(await bad.exit).toBe(1);
  }, 30_000);
});
