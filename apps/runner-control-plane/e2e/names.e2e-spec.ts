import { bootRunners, RunnerTestContext } from './runner-helpers';

/**
 * A runner's `name` (create and self-hosted registration) is a human-readable name: control
 * characters, line breaks, the Unicode line/paragraph separators and the bidirectional embeddings,
 * overrides and isolates are 400 `invalid_request` naming it (it travels in `agent.failed` as
 * `runner_name` and in audit events), nothing recorded. The LRM/RLM marks are accepted. The
 * identifiers `runtime_version` and `image_ref`, shown beside the name, follow the same rule.
 */

/** Every character `displayNameProblem` refuses, by kind: controls, separators, bidirectional formatting. */
const REFUSED = [
  ...['\u0000', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029'],
  // Embeddings and overrides (LRE, RLE, PDF, LRO, RLO), then isolates (LRI, RLI, FSI, PDI): "Trojan Source".
  ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'],
];

describe('runner names', () => {
  let ctx: RunnerTestContext;
  beforeAll(async () => {
    ctx = await bootRunners();
  });
  afterAll(() => ctx.stop());

  it.each(REFUSED.map((c) => [`U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, c]))(
    'refuses %s in the name on create and on self-hosted registration',
    async (code, c) => {
      const before = (await ctx.admin.get('/')).body.total;
      const create = await ctx.admin.post('/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, name: `box${c}one` });
      const register = await ctx.admin.post('/byovm/register', { machine_id: `machine-${c.charCodeAt(0)}`, name: `box${c}one` });
      for (const res of [create, register]) {
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'name' });
        expect(res.body.error.message).toContain(`name must not contain control characters`);
        expect(res.body.error.message).toContain(`found ${code} at position 4`);
      }
      expect((await ctx.admin.get('/')).body.total).toBe(before);
    },
  );

  it.each([
    ['\n', 'U+000A'],
    ['\u001b', 'U+001B'],
    ['\u202e', 'U+202E'],
  ])('refuses %j in runtime_version and image_ref on create, and in runtime_version on self-hosted registration', async (c, code) => {
    const before = (await ctx.admin.get('/')).body.total;
    const cases: [string, Record<string, unknown>, string][] = [
      ['/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: `py${c}312` }, 'runtime_version'],
      ['/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, image_ref: `img${c}:latest` }, 'image_ref'],
      ['/byovm/register', { machine_id: `machine-version-${c.charCodeAt(0)}`, runtime_version: `py${c}312` }, 'runtime_version'],
    ];
    for (const [path, body, param] of cases) {
      const res = await ctx.admin.post(path, body);
      expect([path, param, res.status, res.body.error?.param]).toEqual([path, param, 400, param]);
      expect(res.body.error.message).toContain(`${param} must not contain control characters`);
      expect(res.body.error.message).toContain(`found ${code} at position`);
    }
    expect((await ctx.admin.get('/')).body.total).toBe(before);
    const fine = await ctx.admin.createRunner({ runtime_version: 'python-3.12', image_ref: 'registry.example.com/team/box:1.2@sha256:abc' });
    expect((await ctx.repos.runners.findById(ctx.orgId, fine.runner_id))?.image_ref).toBe('registry.example.com/team/box:1.2@sha256:abc');
  });

  it('accepts other text (accents, other scripts, emoji, the RLM/LRM marks) as a name', async () => {
    const runner = await ctx.admin.createRunner({ name: 'Équipe — runner 🚀' });
    expect((await ctx.repos.runners.findById(ctx.orgId, runner.runner_id))?.name).toBe('Équipe — runner 🚀');
    const register = await ctx.admin.post('/byovm/register', { machine_id: 'machine-ok', name: 'データ box' });
    expect(register.status).toBe(201);
    expect((await ctx.repos.runners.findById(ctx.orgId, register.body.runner_id))?.name).toBe('データ box');
    for (const [i, name] of ['צוות\u200f 2', 'ops\u200eteam'].entries()) {
      const marked = await ctx.admin.createRunner({ name });
      expect((await ctx.repos.runners.findById(ctx.orgId, marked.runner_id))?.name).toBe(name);
      const registered = await ctx.admin.post('/byovm/register', { machine_id: `machine-mark-${i}`, name });
      expect(registered.status).toBe(201);
      expect((await ctx.repos.runners.findById(ctx.orgId, registered.body.runner_id))?.name).toBe(name);
    }
  });
});
