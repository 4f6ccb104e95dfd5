import { extractTexts } from './extract';

describe('extractTexts', () => {
  it('extracts format-A string content, text parts and tool results with paths and roles', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Look at this' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }, { type: 'text', text: '' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'tool output' },
      ],
    };
    expect(extractTexts(body)).toEqual([
      { path: 'messages[0].content', text: 'Be brief.', role: 'system' },
      { path: 'messages[1].content[0].text', text: 'Look at this', role: 'user' },
      { path: 'messages[3].content', text: 'tool output', role: 'tool' },
    ]);
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
  });
});
