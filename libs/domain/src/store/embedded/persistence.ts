import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDate, isPlainObject } from '../document-utils';
import { DocumentRefusedError } from '../types';

/**
 * On-disk form of one embedded collection: `{"collection": name, "documents": [...]}` as JSON,
 * with Date values tagged as `{"$date": "<ISO 8601>"}` so they come back as Dates.
 */
interface CollectionFile {
  collection: string;
  format: 1;
  documents: unknown[];
}

export function collectionFilePath(dir: string, name: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`Invalid collection name: ${name}`);
  return join(dir, `${name}.json`);
}

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = key === '' ? value : this[key];
  if (isDate(raw)) return { $date: raw.toISOString() };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const tagged = (value as { $date?: unknown }).$date;
    if (keys.length === 1 && typeof tagged === 'string') return new Date(tagged);
  }
  return value;
}

/**
 * Refuses a document the files cannot hold (DocumentRefusedError): an invalid Date (no ISO form) or
 * a BigInt (no JSON form). Checked when a document is stored, not when the files are written: one
 * such document in memory would fail every later write of its collection, and of those after it.
 */
export function assertStorable(collection: string, value: unknown, path = ''): void {
  if (isDate(value)) {
    if (Number.isNaN(value.getTime())) throw new DocumentRefusedError(collection, `${path || 'the document'} is an invalid date`);
  } else if (typeof value === 'bigint') {
    throw new DocumentRefusedError(collection, `${path} is a BigInt`);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertStorable(collection, value[i], `${path}.${i}`);
  } else if (isPlainObject(value)) {
    for (const key in value) assertStorable(collection, value[key], path ? `${path}.${key}` : key);
  }
}

export function serializeDocuments(name: string, documents: Iterable<unknown>): string {
  const file: CollectionFile = { collection: name, format: 1, documents: [...documents] };
  return JSON.stringify(file, replacer);
}

/** The journal beside a collection file: documents inserted since it was last written, one per line. */
export function journalFilePath(dir: string, name: string): string {
  return `${collectionFilePath(dir, name).slice(0, -'.json'.length)}.journal.jsonl`;
}

export function serializeJournal(documents: readonly unknown[]): string {
  let text = '';
  for (const document of documents) text += `${JSON.stringify(tagDates(document))}\n`;
  return text;
}

/**
 * The value with every Date as `{"$date": ISO}`, copying only the objects on the way to a Date (a
 * usage record has one, at the top). Faster than a JSON.stringify replacer, which is called back for
 * every value; journals are written on every request.
 */
export function tagDates(value: unknown): unknown {
  if (isDate(value)) return { $date: value.toISOString() };
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const tagged = tagDates(value[i]);
      if (tagged !== value[i]) (copy ??= value.slice())[i] = tagged;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | null = null;
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const item = record[key];
      if (item === null || typeof item !== 'object') continue;
      const tagged = tagDates(item);
      if (tagged !== item) (copy ??= { ...record })[key] = tagged;
    }
    return copy ?? value;
  }
  return value;
}

/** Documents of a journal; a torn last line (a crash mid-append) is dropped. */
export function readJournalFile(path: string): unknown[] {
  if (!existsSync(path)) return [];
  return parseJournal(readFileSync(path, 'utf8'));
}

/** Documents of journal text, one per line, up to the first torn line. */
export function parseJournal(text: string): unknown[] {
  const documents: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      documents.push(JSON.parse(line, reviver));
    } catch {
      break;
    }
  }
  return documents;
}

export function deserializeDocuments(text: string): unknown[] {
  const parsed = JSON.parse(text, reviver) as Partial<CollectionFile>;
  if (!parsed || !Array.isArray(parsed.documents)) throw new Error('not a collection file (no documents array)');
  return parsed.documents;
}

/** Reads a collection file; an absent file is an empty collection, an unreadable one an error naming it. */
export function readCollectionFile(path: string): unknown[] {
  if (!existsSync(path)) return [];
  try {
    return deserializeDocuments(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the embedded document store file ${path}: ${(error as Error).message}`);
  }
}

function tempPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Atomic replace: write a temp file beside the target, then rename over it. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = tempPath(path);
  await writeFile(temp, content, { encoding: 'utf8', mode: 0o600 });
  await rename(temp, path);
}

export function writeFileAtomicSync(path: string, content: string): void {
  const temp = tempPath(path);
  writeFileSync(temp, content, { encoding: 'utf8', mode: 0o600 });
  renameSync(temp, path);
}
