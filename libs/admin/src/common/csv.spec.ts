import { parse } from 'csv-parse/sync';
import { attachment, csvCell, csvDocument, csvRow } from './csv';

describe('CSV export cells', () => {
  it('quotes commas, quotes and line breaks, and round-trips through a CSV parser', () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', '', 'ünïcödé'];
    const line = csvRow(values);
    expect(line.endsWith('\r\n')).toBe(true);
    expect(parse(line)).toEqual([values]);
  });

  it('writes null as empty, dates as ISO 8601, numbers and booleans as text', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(new Date(Date.UTC(2025, 0, 2, 3, 4, 5)))).toBe('2025-01-02T03:04:05.000Z');
    expect(csvCell(0.000123)).toBe('0.000123');
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(true)).toBe('true');
  });

  it('neutralizes text that a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
  });

  it('builds a document in header order', () => {
    const doc = csvDocument<{ a: string; b: number | null }>(['a', 'b'], [{ a: 'x,y', b: 1 }, { a: 'z', b: null }]);
    expect(parse(doc, { columns: true })).toEqual([{ a: 'x,y', b: '1' }, { a: 'z', b: '' }]);
  });

  it('makes a header-safe download filename', () => {
    expect(attachment('usage-org_1-2025-01-01.csv')).toBe('attachment; filename="usage-org_1-2025-01-01.csv"');
    expect(attachment('a"b\r\n.csv')).toBe('attachment; filename="a_b__.csv"');
  });
});
