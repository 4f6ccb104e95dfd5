import { randomBytes } from 'node:crypto';
import { MAX_BODY_TEXTS, MIN_BASE64_PAYLOAD_CHARS, extractBodyTexts, isBase64Payload, isPlainKey } from './extract-body';
import { scanPii } from './pii/scan-pii';
import { classifyFindings } from './safety/classifier';
import { scanContentSafety } from './safety/content-safety';
import { scanSecurity } from './safety/security-scanner';

describe('extractBodyTexts (the D catch-all)', () => {
  it('extracts every string of an array body, in document order, role input', () => {
    expect(extractBodyTexts([{ custom_id: 'a', input: 'hi' }, { custom_id: 'b', input: ['x', 1, null, true] }, 'bare', 7])).toEqual([
      { path: '[0].custom_id', text: 'a', role: 'input' },
      { path: '[0].input', text: 'hi', role: 'input' },
      { path: '[1].custom_id', text: 'b', role: 'input' },
      { path: '[1].input[0]', text: 'x', role: 'input' },
      { path: '[2]', text: 'bare', role: 'input' },
    ]);
  });

  it('extracts a bare string as `body`, and nothing of a number, a boolean, null, an empty string or no body', () => {
    expect(extractBodyTexts('My SSN')).toEqual([{ path: 'body', text: 'My SSN', role: 'input' }]);
    for (const body of [42, true, null, '', undefined, [], {}]) expect(extractBodyTexts(body)).toEqual([]);
  });

  it('reads the known fields of an object with their roles (as on the chat routes) and every other string once', () => {
    const body = {
      model: 'mistral-large-latest',
      instructions: 'Be brief.',
      messages: [{ role: 'system', content: 'You are a bot.' }, { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
      query: 'which?',
      documents: [{ text: 'doc one', meta: { author: 'Ann' } }],
    };
    expect(extractBodyTexts(body)).toEqual([
      { path: 'messages[0].content', text: 'You are a bot.', role: 'system' },
      { path: 'messages[1].content[0].text', text: 'hi', role: 'user' },
      { path: 'instructions', text: 'Be brief.', role: 'system' },
      { path: 'model', text: 'mistral-large-latest', role: 'input' },
      { path: 'messages[0].role', text: 'system', role: 'input' },
      { path: 'messages[1].role', text: 'user', role: 'input' },
      { path: 'messages[1].content[0].type', text: 'text', role: 'input' },
      { path: 'messages[1].content[1].type', text: 'image_url', role: 'input' },
      { path: 'messages[1].content[1].image_url.url', text: 'https://x/y.png', role: 'input' },
      { path: 'query', text: 'which?', role: 'input' },
      { path: 'documents[0].text', text: 'doc one', role: 'input' },
      { path: 'documents[0].meta.author', text: 'Ann', role: 'input' },
    ]);
  });

  it('does not extract twice what a known field took (a tool_use input as JSON text, schema texts under odd keys)', () => {
    const body = { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { ssn: '123-45-6789' } }] }] };
    const texts = extractBodyTexts(body).filter((t) => t.text.includes('123-45-6789'));
    expect(texts).toEqual([{ path: 'messages[0].content[0].input', text: '{"ssn":"123-45-6789"}', role: 'assistant' }]);
    const tools = { tools: [{ type: 'function', function: { name: 'f', parameters: { properties: { 'a b': { type: 'string', description: 'Ann' } } } } }] };
    expect(extractBodyTexts(tools).filter((t) => t.text === 'Ann')).toEqual([{ path: 'tools[0].function.parameters.properties[*0].description', text: 'Ann', role: 'tool_definition' }]);
  });

  it('gives every text its own path', () => {
    const body = { 'x y': 'a', 'z w': 'b', list: [{ 'p q': 'c' }, { 'p q': 'd' }], tools: [{ function: { parameters: { properties: { 'a b': { type: 's', description: 'u' }, 'c d': { type: 't', description: 'v' } } } } }] };
    const paths = extractBodyTexts(body).map((t) => t.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('scans keys that are not plain names as texts, shown in paths as [*N], each path unique', () => {
    expect(extractBodyTexts({ metadata: { 'ann@example.com': 'vip', DE89370400440532013000: 1, plan_v2: 'pro', 'a b': { 'c d': 'x' } } })).toEqual([
      { path: 'metadata[*0](key)', text: 'ann@example.com', role: 'input' },
      { path: 'metadata[*0]', text: 'vip', role: 'input' },
      { path: 'metadata[*1](key)', text: 'DE89370400440532013000', role: 'input' },
      { path: 'metadata.plan_v2', text: 'pro', role: 'input' },
      { path: 'metadata[*3](key)', text: 'a b', role: 'input' },
      { path: 'metadata[*3][*0](key)', text: 'c d', role: 'input' },
      { path: 'metadata[*3][*0]', text: 'x', role: 'input' },
    ]);
    for (const key of ['model', 'custom_id', 'top_k', '$ref', 'x-api-version', 'gpt4o', 'v2024']) expect({ key, plain: isPlainKey(key) }).toEqual({ key, plain: true });
    for (const key of ['', '123-45-6789', 'a b', 'a@b.co', 'DE89370400440532013000', 'sk-proj-abc123def456', '-x', 'x'.repeat(65)]) expect({ key, plain: isPlainKey(key) }).toEqual({ key, plain: false });
  });

  it('leaves base64 payloads out: data URLs and long base64 strings; short or prose strings stay in', () => {
    const b64 = randomBytes(600).toString('base64');
    expect(isBase64Payload(`data:image/png;base64,${b64}`)).toBe(true);
    expect(isBase64Payload(`data:audio/wav;codecs=1;BASE64,${randomBytes(10).toString('base64url')}`)).toBe(true);
    expect(isBase64Payload(b64)).toBe(true);
    expect(isBase64Payload(randomBytes(600).toString('base64url'))).toBe(true);
    expect(isBase64Payload('A'.repeat(MIN_BASE64_PAYLOAD_CHARS - 1))).toBe(false);
    expect(isBase64Payload('data:text/plain,My SSN is 123-45-6789')).toBe(false);
    expect(isBase64Payload(`data:image/png;base64,${b64} and more`)).toBe(false);
    expect(isBase64Payload(`${b64} My SSN is 123-45-6789`)).toBe(false);
    expect(extractBodyTexts({ image: `data:image/png;base64,${b64}`, audio: { data: b64 }, caption: 'a cat' })).toEqual([{ path: 'caption', text: 'a cat', role: 'input' }]);
  });

  it(`joins the strings past the first ${MAX_BODY_TEXTS} into one text named by its first and last paths`, () => {
    const texts = extractBodyTexts(Array.from({ length: MAX_BODY_TEXTS + 3 }, (_, i) => `s${i}`));
    expect(texts).toHaveLength(MAX_BODY_TEXTS + 1);
    expect(texts[MAX_BODY_TEXTS - 1]).toEqual({ path: `[${MAX_BODY_TEXTS - 1}]`, text: `s${MAX_BODY_TEXTS - 1}`, role: 'input' });
    expect(texts[MAX_BODY_TEXTS]).toEqual({ path: '[10000] to [10002]', text: 's10000\ns10001\ns10002', role: 'input' });
    expect(extractBodyTexts(Array.from({ length: MAX_BODY_TEXTS + 1 }, (_, i) => `s${i}`)).at(-1)).toEqual({ path: '[10000]', text: 's10000', role: 'input' });
  });

  it('walks a body nested 128 levels without recursion', () => {
    let body: unknown = 'deep';
    for (let i = 0; i < 128; i++) body = i % 2 ? [body] : { a: body };
    const [text] = extractBodyTexts(body);
    expect(text.text).toBe('deep');
    expect(text.path.startsWith('[0].a[0].a')).toBe(true);
  });

  it('gives no PII or safety findings on common provider fields (model ids, ids, URLs, timestamps, base64 images)', () => {
    const body = {
      model: 'accounts/fireworks/models/llama-v3p1-70b-instruct',
      id: 'chatcmpl-B9MHDbslfRfIm2e4uAY4C5DjH0a',
      batch: 'batch_6721b8e0c3f48190a1d2e9f4b7c6a5d3',
      response: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      tool_call_id: 'call_Abc123dEf456GhI789jKl0',
      request_id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      url: '/v1/chat/completions',
      method: 'POST',
      file_url: 'https://bucket.s3.amazonaws.com/doc.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600&X-Amz-Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      created_at: '2025-01-01T00:00:00Z',
      images: Array.from({ length: 20 }, () => `data:image/png;base64,${randomBytes(20_000).toString('base64')}`),
    };
    const texts = extractBodyTexts(body);
    expect(scanPii(texts, { action: 'block' }).findings).toEqual([]);
    const safety = classifyFindings(texts, [...scanContentSafety(texts).findings, ...scanSecurity(texts, { injection: false }).findings]);
    expect(safety.filter((f) => f.blocks)).toEqual([]);
  });
});
