/** Text cells a spreadsheet would run as a formula (CSV injection): prefixed with `'` on export. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One RFC 4180 cell: empty for null, ISO 8601 for dates, quoted (inner quotes doubled) when it holds
 * a comma, a quote or a line break. Text that starts like a formula gets a leading `'`.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (value instanceof Date) text = value.toISOString();
  else if (typeof value === 'string') text = FORMULA_START.test(value) ? `'${value}` : value;
  else text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
