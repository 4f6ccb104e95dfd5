import { MAX_ECHOED_RUN, safeEchoedText } from './echoed-text';

describe('safeEchoedText', () => {
  it('escapes controls, separators and bidirectional formatting characters, and keeps the rest', () => {
    expect(safeEchoedText('a\u202eb\nc\u2028d\u0000e\u009bf\u2067')).toBe('a\\u202eb\\u000ac\\u2028d\\u0000e\\u009bf\\u2067');
    expect(safeEchoedText('שלום\u200f 😀 tab')).toBe('שלום\u200f 😀 tab');
  });

  it('shortens a long run without a space around an ellipsis, the words around it whole', () => {
    const words = 'word '.repeat(60);
    expect(safeEchoedText(`${words}${'p'.repeat(500)} not found`)).toBe(`${words}${'p'.repeat(79)}…${'p'.repeat(40)} not found`);
    expect(safeEchoedText(`${words}${'x'.repeat(MAX_ECHOED_RUN)}`)).toBe(`${words}${'x'.repeat(MAX_ECHOED_RUN)}`);
  });

  it('never splits a surrogate pair where it cuts', () => {
    // Both cuts fall between the two halves of a pair here: each moves to keep the pair whole or out.
    const shown = safeEchoedText(`${'😀'.repeat(200)}e`);
    expect(shown.length).toBeLessThanOrEqual(MAX_ECHOED_RUN);
    expect(shown).toMatch(/^(😀)+…(😀)+e$/u);
  });
});
