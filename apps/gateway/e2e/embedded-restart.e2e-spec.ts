import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayHarness, postJson, PROVIDER_KEY, startGateway } from './harness';

/**
 * The embedded mode (no REDIS_URL) counts budgets in memory; its counters are kept in DATA_DIR, so a
 * restart does not forget the day's spend (an exceeded daily budget stays exceeded).
 */
describe('embedded mode: the budget counters survive a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
  let gw: GatewayHarness | null = null;
  afterAll(async () => {
    await gw?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows the spend from before the restart in X-SVC-Daily-Cost, and keeps counting from it", async () => {
    const embedded = { REDIS_URL: '', DATA_DIR: dataDir };
    gw = await startGateway({ env: embedded });
    const auth = { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY };
    const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'spend something before the restart' }] };
    expect((await postJson(`${gw.url}/v1/chat/completions`, chat, auth)).status).toBe(200);
    const before = await postJson(`${gw.url}/v1/chat/completions`, chat, auth);
    const spentBefore = Number(before.headers.get('x-svc-daily-cost'));
    expect(spentBefore).toBeGreaterThan(0);
    await gw.stop();

    gw = await startGateway({ env: embedded });
    // The key and organization of the first start live in the same DATA_DIR.
    const after = await postJson(`${gw.url}/v1/chat/completions`, chat, auth);
    expect(after.status).toBe(200);
    expect(Number(after.headers.get('x-svc-daily-cost'))).toBeGreaterThan(spentBefore);
  });
});
