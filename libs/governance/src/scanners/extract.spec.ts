import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_TEXTS, extractTexts } from './extract';

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

  it('extracts the texts of format-A parameter schemas at any depth, each under its path, in document order', () => {
    const parameters = {
      type: 'object',
      title: 'Weather query',
      properties: {
        city: { type: 'string', description: 'City name', examples: ['Berlin', 'Paris'], pattern: '^[A-Z]' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
        days: { type: 'integer', default: 3, const: 3 },
        // A property named like a keyword is a subschema: its name is not a keyword.
        description: { type: 'string', description: 'Free text' },
        tags: { type: 'array', items: { anyOf: [{ type: 'string', description: 'A tag' }, { $ref: '#/$defs/tag' }] } },
        'ship-to address': { type: 'object', properties: { zip: { description: 'ZIP code' } } },
        filter: { type: 'object', default: { owner: 'jane@example.com' } },
      },
      required: ['city', 'ssn 123-45-6789'],
      $defs: { tag: { $comment: 'internal', 'x-note': { description: 'vendor extension' } } },
    };
    const body = { messages: [], tools: [{ type: 'function', function: { name: 'weather', description: 'Gets the weather', parameters } }] };
    const at = 'tools[0].function.parameters';
    expect(extractTexts(body)).toEqual([
      { path: 'tools[0].function.description', text: 'Gets the weather', role: 'tool_definition' },
      { path: `${at}.title`, text: 'Weather query', role: 'tool_definition' },
      { path: `${at}.properties.city.description`, text: 'City name', role: 'tool_definition' },
      { path: `${at}.properties.city.examples`, text: '["Berlin","Paris"]', role: 'tool_definition' },
      { path: `${at}.properties.unit.enum`, text: '["celsius","fahrenheit"]', role: 'tool_definition' },
      { path: `${at}.properties.unit.default`, text: 'celsius', role: 'tool_definition' },
      { path: `${at}.properties.days.default`, text: '3', role: 'tool_definition' },
      { path: `${at}.properties.days.const`, text: '3', role: 'tool_definition' },
      { path: `${at}.properties.description.description`, text: 'Free text', role: 'tool_definition' },
      { path: `${at}.properties.tags.items.anyOf[0].description`, text: 'A tag', role: 'tool_definition' },
      { path: `${at}.properties[*5].properties.zip.description`, text: 'ZIP code', role: 'tool_definition' },
      { path: `${at}.properties.filter.default`, text: '{"owner":"jane@example.com"}', role: 'tool_definition' },
      { path: `${at}.$defs.tag.$comment`, text: 'internal', role: 'tool_definition' },
      { path: `${at}.$defs.tag.x-note.description`, text: 'vendor extension', role: 'tool_definition' },
    ]);
  });

  it('gives every schema text its own path and keeps keys that could hold data out of paths', () => {
    const parameters = {
      type: 'object',
      properties: {
        'a b': { type: 'string', description: 'first' },
        'c d': { type: 'string', description: 'second' },
        DE89370400440532013000: { type: 'string', description: 'third' },
        'ann@example.com': { type: 'object', properties: { 'x y': { title: 'fourth' } } },
        v2024: { type: 'string', description: 'fifth' },
      },
    };
    const at = 'tools[0].function.parameters.properties';
    const texts = extractTexts({ messages: [], tools: [{ type: 'function', function: { name: 'f', parameters } }] });
    expect(texts).toEqual([
      { path: `${at}[*0].description`, text: 'first', role: 'tool_definition' },
      { path: `${at}[*1].description`, text: 'second', role: 'tool_definition' },
      { path: `${at}[*2].description`, text: 'third', role: 'tool_definition' },
      { path: `${at}[*3].properties[*0].title`, text: 'fourth', role: 'tool_definition' },
      { path: `${at}.v2024.description`, text: 'fifth', role: 'tool_definition' },
    ]);
    expect(texts.map((t) => t.path).join(' ')).not.toMatch(/DE89|ann@/);
  });

  it('extracts format-B input_schema and legacy functions parameters texts', () => {
    const schema = { type: 'object', properties: { q: { type: 'string', description: 'Search terms' } } };
    expect(extractTexts({ messages: [], tools: [{ name: 'search', input_schema: schema }], functions: [{ name: 'find', parameters: schema }] })).toEqual([
      { path: 'tools[0].input_schema.properties.q.description', text: 'Search terms', role: 'tool_definition' },
      { path: 'functions[0].parameters.properties.q.description', text: 'Search terms', role: 'tool_definition' },
    ]);
    expect(extractTexts({ tools: [{ name: 'x', input_schema: 'not a schema' }, { name: 'y', input_schema: 42 }] })).toEqual([
      { path: 'tools[0].input_schema', text: 'not a schema', role: 'tool_definition' },
    ]);
  });

  it('extracts a schema past its bounds whole, as one text at the schema path, so nothing goes unscanned', () => {
    const nested = (levels: number, leaf: Record<string, unknown>): Record<string, unknown> => {
      let node: Record<string, unknown> = leaf;
      for (let i = 0; i < levels; i++) node = { type: 'object', properties: { inner: node } };
      return node;
    };
    // Each level is two objects deep (the properties map and the subschema): the leaf is at MAX_SCHEMA_DEPTH, then one level more.
    const shallow = extractTexts({ tools: [{ name: 't', input_schema: nested(MAX_SCHEMA_DEPTH / 2, { description: 'leaf' }) }] });
    expect(shallow).toEqual([{ path: `tools[0].input_schema${'.properties.inner'.repeat(MAX_SCHEMA_DEPTH / 2)}.description`, text: 'leaf', role: 'tool_definition' }]);
    const deep = extractTexts({ tools: [{ name: 't', input_schema: nested(MAX_SCHEMA_DEPTH / 2 + 1, { description: 'SSN 123-45-6789' }) }] });
    expect(deep).toHaveLength(1);
    expect(deep[0].path).toBe('tools[0].input_schema');
    expect(deep[0].text.endsWith('inner\ndescription\nSSN 123-45-6789')).toBe(true);
    // Far too deep for recursion: walked all the same.
    const abyss = extractTexts({ tools: [{ name: 't', input_schema: nested(20_000, { description: 'bottom' }) }] });
    expect(abyss).toHaveLength(1);
    expect(abyss[0].text.endsWith('description\nbottom')).toBe(true);
    // Past the request's text budget: the schema that overflows is one text; the ones before keep their paths.
    const many = (count: number) => ({ properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { description: `d${i}` }])) });
    const split = extractTexts({
      tools: [
        { name: 'a', input_schema: many(MAX_SCHEMA_TEXTS - 1) },
        { name: 'b', input_schema: many(2) },
        { name: 'c', input_schema: many(1) },
      ],
    });
    expect(split).toHaveLength(MAX_SCHEMA_TEXTS + 1);
    expect(split[MAX_SCHEMA_TEXTS - 2]).toEqual({ path: `tools[0].input_schema.properties.p${MAX_SCHEMA_TEXTS - 2}.description`, text: `d${MAX_SCHEMA_TEXTS - 2}`, role: 'tool_definition' });
    expect(split[MAX_SCHEMA_TEXTS - 1]).toEqual({ path: 'tools[1].input_schema', text: 'properties\np0\ndescription\nd0\np1\ndescription\nd1', role: 'tool_definition' });
    expect(split[MAX_SCHEMA_TEXTS]).toEqual({ path: 'tools[2].input_schema.properties.p0.description', text: 'd0', role: 'tool_definition' });
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

  it('extracts every other text stage 2 prices: Responses and Mistral conversation items, instructions, FIM suffix, response schema, prediction', () => {
    const responses = {
      instructions: 'Answer as support.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'my card' }, { type: 'input_image', image_url: 'https://x/y.png' }] },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"id":7}' },
        { type: 'function_call_output', call_id: 'c1', output: 'found it' },
        { type: 'message', content: 'no role' },
      ],
    };
    expect(extractTexts(responses)).toEqual([
      { path: 'input[0].content[0].text', text: 'my card', role: 'user' },
      { path: 'input[1].arguments', text: '{"id":7}', role: 'assistant' },
      { path: 'input[2].output', text: 'found it', role: 'tool' },
      { path: 'input[3].content', text: 'no role', role: 'user' },
      { path: 'instructions', text: 'Answer as support.', role: 'system' },
    ]);
    expect(extractTexts({ inputs: 'hello' })).toEqual([{ path: 'inputs', text: 'hello', role: 'input' }]);
    expect(extractTexts({ inputs: [{ type: 'message.input', role: 'user', content: 'hi' }, { type: 'function.result', tool_call_id: 't', result: { ok: true } }] })).toEqual([
      { path: 'inputs[0].content', text: 'hi', role: 'user' },
      { path: 'inputs[1].result', text: '{"ok":true}', role: 'tool' },
    ]);
    expect(extractTexts({ prompt: 'def f():', suffix: '    return 1' })).toEqual([
      { path: 'prompt', text: 'def f():', role: 'input' },
      { path: 'suffix', text: '    return 1', role: 'input' },
    ]);
    const formatted = {
      response_format: { type: 'json_schema', json_schema: { name: 'r', description: 'A reply', schema: { type: 'object', properties: { a: { type: 'string', description: 'Field a' } } } } },
      prediction: { type: 'content', content: [{ type: 'text', text: 'the old file' }] },
    };
    expect(extractTexts(formatted)).toEqual([
      { path: 'response_format.json_schema.description', text: 'A reply', role: 'system' },
      { path: 'response_format.json_schema.schema.properties.a.description', text: 'Field a', role: 'system' },
      { path: 'prediction.content[0].text', text: 'the old file', role: 'prediction' },
    ]);
    expect(extractTexts({ response_format: { type: 'json_object' }, prediction: 'x', inputs: [null, 3] })).toEqual([]);
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
