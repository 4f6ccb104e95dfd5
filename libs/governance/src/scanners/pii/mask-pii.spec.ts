import { BACKGROUND, POSITIVES } from '../__fixtures__/pii-corpus';
import { maskPii, piiMask } from './mask-pii';
import { detectPii } from './scan-pii';

describe('maskPii', () => {
  it('replaces each match with the mask of its type and keeps the rest of the text', () => {
    const text = 'Mail jane.doe@example.com, card 4111 1111 1111 1111, SSN 123-45-6789, IBAN DE89 3704 0044 0532 0130 00. Thanks!';
    expect(maskPii(text)).toBe(
      `Mail ${piiMask('email')}, card ${piiMask('credit_card')}, SSN ${piiMask('ssn')}, IBAN ${piiMask('iban')}. Thanks!`,
    );
  });

  it('masks credentials pasted into a text, whatever field holds it', () => {
    const key = 'sk-proj-Abc123Def456Ghi789Jkl012Mno345';
    expect(maskPii(`use ${key} for it`)).toBe(`use ${piiMask('openai_api_key')} for it`);
  });

  it('returns a text without matches as it is', () => {
    const text = 'Summarize the quarterly report in three bullet points.';
    expect(maskPii(text)).toBe(text);
    expect(maskPii('')).toBe('');
  });

  it('masks overlapping matches once, named after the one that starts first', () => {
    // The e-mail address is the value of a secret assignment: one mask covers both.
    const text = 'login with password=jane@example.com today';
    expect(detectPii(text).map((found) => found.type).sort()).toEqual(['email', 'generic_secret']);
    expect(maskPii(text)).toBe(`login with ${piiMask('generic_secret')} today`);
  });

  it('leaves nothing of any corpus positive for the scanner to find', () => {
    const leftovers = POSITIVES.map((entry) => ({ text: entry.text, left: detectPii(maskPii(entry.text)).map((found) => found.type) })).filter(
      (entry) => entry.left.length > 0,
    );
    expect(leftovers).toEqual([]);
  });

  it('keeps background texts without findings unchanged', () => {
    const clean = BACKGROUND.filter((entry) => detectPii(entry.text).length === 0);
    expect(clean.length).toBeGreaterThan(0);
    for (const entry of clean) expect(maskPii(entry.text)).toBe(entry.text);
  });
});
