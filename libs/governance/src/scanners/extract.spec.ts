import { extractTexts } from './extract';

describe('extractTexts', () => {
  it('extracts format-A string content, text parts, tool-call arguments and tool results with paths and roles', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Look at this' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }, { type: 'text', text: '' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"ssn":"123-45-6789"}' } }, { id: 'c2', type: 'function', function: { name: 'g' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'tool output' },
      ],
    };
    expect(extractTexts(body)).toEqual([
      { path: 'messages[0].content', text: 'Be brief.', role: 'system' },
      { path: 'messages[1].content[0].text', text: 'Look at this', role: 'user' },
      { path: 'messages[2].tool_calls[0].function.arguments', text: '{"ssn":"123-45-6789"}', role: 'assistant' },
      { path: 'messages[3].content', text: 'tool output', role: 'tool' },
    ]);
  });

  it('extracts legacy function_call arguments and the descriptions of tools and legacy functions', () => {
    const body = {
      messages: [{ role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"card":"4111 1111 1111 1111"}' } }],
      tools: [{ type: 'function', function: { name: 'fetch', description: 'Fetch a page', parameters: {} } }, { type: 'function', function: { name: 'bare' } }, 'junk'],
      functions: [{ name: 'lookup', description: 'Look a customer up' }],
    };
    expect(extractTexts(body)).toEqual([
      { path: 'messages[0].function_call.arguments', text: '{"card":"4111 1111 1111 1111"}', role: 'assistant' },
      { path: 'tools[0].function.description', text: 'Fetch a page', role: 'tool_definition' },
      { path: 'functions[0].description', text: 'Look a customer up', role: 'tool_definition' },
    ]);
  });

  it('extracts format-B tool_use input as JSON text and tool descriptions', () => {
    const body = {
      messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Calling' }, { type: 'tool_use', id: 't1', name: 'lookup', input: { ssn: '123-45-6789', n: 2 } }, { type: 'tool_use', id: 't2', name: 'none', input: {} }] }],
      tools: [{ name: 'lookup', description: 'Look a customer up', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }],
    };
    expect(extractTexts(body)).toEqual([
      { path: 'messages[0].content[0].text', text: 'Calling', role: 'assistant' },
      { path: 'messages[0].content[1].input', text: '{"ssn":"123-45-6789","n":2}', role: 'assistant' },
      { path: 'messages[0].content[2].input', text: '{}', role: 'assistant' },
      { path: 'tools[0].description', text: 'Look a customer up', role: 'tool_definition' },
    ]);
  });

  it('extracts the end-user identifiers: format A user and safety_identifier, format B metadata.user_id', () => {
    expect(extractTexts({ messages: [], user: 'jane@example.com', safety_identifier: 'u-42' })).toEqual([
      { path: 'user', text: 'jane@example.com', role: 'metadata' },
      { path: 'safety_identifier', text: 'u-42', role: 'metadata' },
    ]);
    expect(extractTexts({ messages: [], metadata: { user_id: 'jane@example.com' } })).toEqual([{ path: 'metadata.user_id', text: 'jane@example.com', role: 'metadata' }]);
    expect(extractTexts({ messages: [], user: 42, metadata: 'x' })).toEqual([]);
  });

  it('extracts format-B system (string or blocks), text blocks, tool_result content and text documents', () => {
    const body = {
      model: 'claude-sonnet-4-20250514',
      system: [{ type: 'text', text: 'System block' }],
      messages: [
        { role: 'user', content: 'Plain' },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't', content: 'result string' },
            { type: 'tool_result', tool_use_id: 'u', content: [{ type: 'text', text: 'result block' }] },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc text' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0' } },
          ],
        },
      ],
    };
    expect(extractTexts(body)).toEqual([
      { path: 'system[0].text', text: 'System block', role: 'system' },
      { path: 'messages[0].content', text: 'Plain', role: 'user' },
      { path: 'messages[1].content[0].content', text: 'result string', role: 'tool' },
      { path: 'messages[1].content[1].content[0].text', text: 'result block', role: 'tool' },
      { path: 'messages[1].content[2].source.data', text: 'doc text', role: 'user' },
    ]);
    expect(extractTexts({ system: 'As a string', messages: [] })).toEqual([{ path: 'system', text: 'As a string', role: 'system' }]);
  });

  it('extracts embeddings input as a string or strings and skips token arrays', () => {
    expect(extractTexts({ model: 'text-embedding-3-small', input: 'one' })).toEqual([{ path: 'input', text: 'one', role: 'input' }]);
    expect(extractTexts({ input: ['one', 'two', 3] })).toEqual([
      { path: 'input[0]', text: 'one', role: 'input' },
      { path: 'input[1]', text: 'two', role: 'input' },
    ]);
    expect(extractTexts({ input: [[1, 2, 3]] })).toEqual([]);
  });

  it('tolerates malformed bodies', () => {
    expect(extractTexts(null)).toEqual([]);
    expect(extractTexts({ messages: 'nope' })).toEqual([]);
    expect(extractTexts({ messages: [null, 3, { content: 'no role' }] })).toEqual([{ path: 'messages[2].content', text: 'no role', role: 'user' }]);
    expect(extractTexts({ messages: [{ role: 'assistant', tool_calls: 'x', function_call: 'y' }, { role: 'assistant', tool_calls: [null, { function: 'z' }] }], tools: {}, functions: [null] })).toEqual([]);
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 20_000; i++) node = (node.a = {}) as Record<string, unknown>;
    node.ssn = '123-45-6789';
    // Too deep for JSON.stringify: keys and strings are still extracted, in document order.
    const [tooDeep] = extractTexts({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', input: { note: 'x', deep } }] }] });
    expect(tooDeep.path).toBe('messages[0].content[0].input');
    expect(tooDeep.text.startsWith('note\nx\ndeep\na\na\n')).toBe(true);
    expect(tooDeep.text.endsWith('a\nssn\n123-45-6789')).toBe(true);
  });
});
