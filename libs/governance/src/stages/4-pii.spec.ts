import { chatBody, contextFor } from '../chain/governance.fixtures';
import { piiStage, PiiFindingSummary } from './4-pii';
import { PresidioNerClient } from './ner-client';
import { JsonServer, startJsonServer } from './http-stub.testing';

const CARD = '4111 1111 1111 1111';

function deps(ner: PresidioNerClient | null = null) {
  const warnings: PiiFindingSummary[][] = [];
  const nerErrors: unknown[] = [];
  return { warnings, nerErrors, ner, onWarning: (f: PiiFindingSummary[]) => warnings.push(f), onNerError: (err: unknown) => nerErrors.push(err) };
}

describe('stage 4, PII scan', () => {
  it('allows clean text', async () => {
    expect((await piiStage(contextFor({ input: { body: chatBody('Summarize the meeting notes.') } }), deps())).outcome).toBe('ALLOW');
  });

  it('blocks a card number by default, naming type and field but never the value', async () => {
    const ctx = contextFor({ input: { body: chatBody(`Charge ${CARD} please`) } });
    const result = await piiStage(ctx, deps());
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'pii_detected', gateway_error_code: 'GW_PII_001', param: 'messages[0].content' });
    expect(result.error.body.message).toContain('credit_card in messages[0].content');
    expect(JSON.stringify(result)).not.toContain('4111');
    expect(result.events?.[0]).toMatchObject({
      type: 'guardrail.triggered',
      data: { guardrail: 'pii_detected', model: 'gpt-4o-mini', details: { pii_types: ['credit_card'], field: 'messages[0].content' } },
    });
    expect(ctx.findings.pii_types).toEqual(['credit_card']);
  });

  it('flags MEDIUM findings and everything under pii_action flag or allow', async () => {
    const email = deps();
    expect((await piiStage(contextFor({ input: { body: chatBody('Mail jane.doe@example.com') } }), email)).outcome).toBe('ALLOW');
    expect(email.warnings[0]).toEqual([{ type: 'email', severity: 'MEDIUM', path: 'messages[0].content', count: 1 }]);
    for (const action of ['flag', 'allow'] as const) {
      const d = deps();
      expect((await piiStage(contextFor({ profile: { policy: { pii_action: action } }, input: { body: chatBody(`card ${CARD}`) } }), d)).outcome).toBe('ALLOW');
      expect(d.warnings).toHaveLength(1);
    }
  });

  it('is off with pii_scan_enabled false, and scans system, tool results and embeddings input', async () => {
    expect((await piiStage(contextFor({ profile: { policy: { pii_scan_enabled: false } }, input: { body: chatBody(`card ${CARD}`) } }), deps())).outcome).toBe('ALLOW');
    const system = await piiStage(contextFor({ input: { format: 'anthropic', body: { system: 'key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD', messages: [] } } }), deps());
    expect(system.outcome === 'BLOCK' && system.error.body.message).toContain('in system');
    const tool = await piiStage(
      contextFor({ input: { body: { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'SSN 123-45-6789' }] }] } } }),
      deps(),
    );
    expect(tool.outcome === 'BLOCK' && tool.error.body.message).toContain('ssn in messages[0].content[0].content');
    const embeddings = await piiStage(contextFor({ input: { endpoint: 'embeddings', body: { model: 'text-embedding-3-small', input: ['ok', `card ${CARD}`] } } }), deps());
    expect(embeddings.outcome === 'BLOCK' && embeddings.error.body.message).toContain('credit_card in input[1]');
  });

  it('scans tool-call arguments, tool descriptions and the end-user id, naming their field paths', async () => {
    const blocked = async (body: Record<string, unknown>, format: 'openai' | 'anthropic' = 'openai') => {
      const result = await piiStage(contextFor({ input: { format, body } }), deps());
      if (result.outcome !== 'BLOCK') throw new Error(`expected BLOCK for ${JSON.stringify(body)}`);
      return result.error.body;
    };
    const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"ssn":"123-45-6789"}' } }] };
    expect(await blocked(chatBody('hi', { messages: [{ role: 'user', content: 'hi' }, call] }))).toMatchObject({
      param: 'messages[1].tool_calls[0].function.arguments',
      message: expect.stringContaining('ssn in messages[1].tool_calls[0].function.arguments'),
    });
    const toolUse = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'charge', input: { card: CARD } }] };
    expect(await blocked({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }, toolUse] }, 'anthropic')).toMatchObject({
      param: 'messages[1].content[0].input',
    });
    expect(await blocked(chatBody('hi', { tools: [{ type: 'function', function: { name: 'pay', description: `Pays with ${CARD}` } }] }))).toMatchObject({
      param: 'tools[0].function.description',
    });
    expect(await blocked({ model: 'claude-sonnet-4-5', messages: [], tools: [{ name: 'pay', description: `SSN 123-45-6789` }] }, 'anthropic')).toMatchObject({
      param: 'tools[0].description',
    });
    expect(await blocked(chatBody('hi', { user: 'SSN 123-45-6789' }))).toMatchObject({ param: 'user' });
    const email = deps();
    expect((await piiStage(contextFor({ input: { body: chatBody('hi', { user: 'jane.doe@example.com' }) } }), email)).outcome).toBe('ALLOW');
    expect(email.warnings[0]).toEqual([{ type: 'email', severity: 'MEDIUM', path: 'user', count: 1 }]);
  });

  it('scans tool parameter schemas (format A parameters, format B input_schema) and lets a plain schema through', async () => {
    const run = (body: Record<string, unknown>, format: 'openai' | 'anthropic' = 'openai') => piiStage(contextFor({ input: { format, body } }), deps());
    const withKey = { type: 'object', properties: { repo: { type: 'string' }, auth: { type: 'string', default: 'ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d' } } };
    const a = await run(chatBody('hi', { tools: [{ type: 'function', function: { name: 'clone', description: 'Clones a repo', parameters: withKey } }] }));
    if (a.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(a.error.body).toMatchObject({ param: 'tools[0].function.parameters.properties.auth.default', message: expect.stringContaining('github_token in tools[0].function.parameters.properties.auth.default') });
    expect(JSON.stringify(a)).not.toContain('ghp_u8jz');
    const nested = { type: 'object', properties: { customer: { type: 'object', properties: { ssn: { type: 'string', examples: ['123-45-6789'] } } } } };
    const b = await run({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'lookup', input_schema: nested }] }, 'anthropic');
    expect(b.outcome === 'BLOCK' && b.error.body.param).toBe('tools[0].input_schema.properties.customer.properties.ssn.examples');
    const plain = {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid', description: 'Order id, e.g. 123e4567-e89b-12d3-a456-426614174000' },
        since: { type: 'string', format: 'date-time', default: '2024-01-15T10:30:00Z' },
        sha: { type: 'string', description: 'Commit, e.g. 9fceb02d0ae598e95dc970b74767f19372d61af8', pattern: '^[0-9a-f]{40}$' },
        password: { type: 'string', description: 'The user password', minLength: 8 },
      },
      required: ['id'],
    };
    expect((await run(chatBody('hi', { tools: [{ type: 'function', function: { name: 'orders', parameters: plain } }] }))).outcome).toBe('ALLOW');
  });

  describe('with a Presidio-compatible analyzer', () => {
    let analyzer: JsonServer;
    let answer: { status?: number; body: unknown; delayMs?: number; headers?: Record<string, string> };
    beforeAll(async () => {
      analyzer = await startJsonServer(() => answer);
    });
    afterAll(() => analyzer.close());

    it('adds its entities by field, blocks CRITICAL ones and flags the rest', async () => {
      const text = 'Passport of John Smith: X1234567';
      answer = { body: [{ entity_type: 'PERSON', start: 12, end: 22, score: 0.85 }, { entity_type: 'US_PASSPORT', start: 24, end: 32, score: 0.9 }] };
      const ctx = contextFor({ input: { body: chatBody(text) } });
      const result = await piiStage(ctx, deps(new PresidioNerClient(analyzer.url, { timeoutMs: 2000 })));
      expect(analyzer.requests.at(-1)).toEqual({ path: '/analyze', body: { text, language: 'en' } });
      if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
      expect(result.error.body.message).toContain('us_passport in messages[0].content');
      expect(ctx.findings.pii_types).toEqual(expect.arrayContaining(['person', 'us_passport']));
    });

    it('fails open on a slow or failing analyzer: the patterns decide', async () => {
      answer = { body: [], delayMs: 500 };
      const slow = deps(new PresidioNerClient(analyzer.url, { timeoutMs: 50 }));
      const started = Date.now();
      expect((await piiStage(contextFor({ input: { body: chatBody('John Smith') } }), slow)).outcome).toBe('ALLOW');
      expect(Date.now() - started).toBeLessThan(300);
      expect(slow.nerErrors).toHaveLength(1);
      answer = { status: 500, body: { error: 'down' } };
      const failing = deps(new PresidioNerClient(analyzer.url, { timeoutMs: 2000 }));
      expect((await piiStage(contextFor({ input: { body: chatBody(`card ${CARD}`) } }), failing)).outcome).toBe('BLOCK');
      expect(failing.nerErrors).toHaveLength(1);
    });

    it('never follows a redirect: the prompt goes nowhere else, and the patterns decide', async () => {
      const elsewhere = await startJsonServer(() => ({ body: [] }));
      try {
        answer = { status: 307, body: {}, headers: { location: `${elsewhere.url}/analyze` } };
        const redirected = deps(new PresidioNerClient(analyzer.url, { timeoutMs: 2000 }));
        expect((await piiStage(contextFor({ input: { body: chatBody('John Smith') } }), redirected)).outcome).toBe('ALLOW');
        expect(redirected.nerErrors).toHaveLength(1);
        expect(elsewhere.requests).toEqual([]);
      } finally {
        await elsewhere.close();
      }
    });
  });
});
