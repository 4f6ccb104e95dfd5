import { plainDecimal } from '@svc/domain';

/**
 * Text a spreadsheet would run as a formula (CSV injection): a cell starting with `=`, `+`, `-` or
 * `@` (after any spaces or quotes), a tab or a carriage return. Such text gets a leading `'`.
 */
const FORMULA_START = /^(?:[\s"]*[=+\-@]|[\t\r])/;

/**
 * A formula character where a spreadsheet that splits on another separator starts a new cell: after
 * a semicolon (the CSV separator of Excel and LibreOffice in locales with a decimal comma: German,
 * French, Spanish, ...), a tab or a line break, after any spaces or quotes. Those programs take a
 * quote as a text qualifier only at the start of a field, so the RFC 4180 quotes around a cell in
 * the middle of a row do not hold its semicolons and line breaks together there: the comma-separated
 * row opens as one text cell up to `x;`, and `=HYPERLINK(...)` becomes a cell of its own, a formula.
 * A `'` goes before that character too.
 */
const FORMULA_AFTER_SEPARATOR = /([;\t\r\n][\s"]*)([=+\-@])/g;

/**
 * Characters that make a cell quoted: RFC 4180's comma, quote and line breaks, and the other
 * separators (semicolon, tab), for the programs that do honour the quotes with them.
 */
const QUOTED = /[",;\t\r\n]/;

/** Text with every place a spreadsheet could read as the start of a formula neutralized by a `'`. */
function inertText(value: string): string {
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return text.replace(FORMULA_AFTER_SEPARATOR, "$1'$2");
}

/**
 * One RFC 4180 cell: empty for null, ISO 8601 for dates, numbers in plain decimals (`plainDecimal` of @svc/domain),
 * quoted (inner quotes doubled) when it holds a comma, a quote, a line break, a semicolon or a tab.
 * Text is made inert first (`inertText`).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (value instanceof Date) text = value.toISOString();
  else if (typeof value === 'string') text = inertText(value);
  else if (typeof value === 'number') text = plainDecimal(value);
  else text = String(value);
  return QUOTED.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** A whole CSV document: the header then one record per row, cells in header order. */
export function csvDocument<T>(columns: readonly (keyof T & string)[], rows: readonly T[]): string {
  return csvRow(columns) + rows.map((row) => csvRow(columns.map((column) => row[column]))).join('');
}

/** `Content-Disposition` of a download, with a filename safe in any header. */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}

/** The OpenAPI `content` of a CSV download: its header row names the columns, one record per row. */
export function csvContent(columns: readonly string[], rows: string): Record<string, { schema: { type: 'string'; description: string } }> {
  return { 'text/csv': { schema: { type: 'string', description: `RFC 4180 CSV, CRLF line ends: the header row \`${columns.join(',')}\`, then one record per ${rows}` } } };
}
