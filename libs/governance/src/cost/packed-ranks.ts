/**
 * One encoding's byte-pair ranks packed into three typed arrays: every token's bytes end to end,
 * where each rank's bytes start, and an open-addressing hash table from bytes to rank. gpt-tokenizer
 * keeps the same ranks as some 200,000 strings, an array of them and a Map from each to its rank:
 * about 14 MB of the gateway's heap, every string of it marked again by each full collection. Packed,
 * o200k takes about 4 MB outside the heap (1.4 MB of bytes, 0.8 MB of offsets, 2 MB of table).
 *
 * Only what counting needs is kept: a rank for a run of bytes. Text reaches the table as UTF-8,
 * encoded the way the library's `TextEncoder` does (a lone surrogate becomes U+FFFD), so a string
 * rank and a rank given as raw bytes are looked up alike.
 */
export class PackedRanks {
  /** Longest token, in bytes: a longer run is never one token. */
  readonly maxTokenBytes: number;

  private constructor(
    private readonly bytes: Uint8Array,
    /** Rank r's bytes are bytes[offsets[r]] up to bytes[offsets[r + 1]]. */
    private readonly offsets: Uint32Array,
    /** rank + 1 at a run's hash slot (or the next free one after it); 0 where empty. */
    private readonly slots: Int32Array,
    maxTokenBytes: number,
  ) {
    this.maxTokenBytes = maxTokenBytes;
  }

  /** Ranks as gpt-tokenizer lists them: index = rank, a string (its UTF-8) or the token's bytes; anything else is an unused rank. */
  static from(ranks: readonly unknown[]): PackedRanks {
    // UTF-8 takes at most 3 bytes per code unit; the bytes are copied to their exact length once written.
    let bound = 0;
    for (const value of ranks) bound += typeof value === 'string' ? 3 * value.length : isByteList(value) ? value.length : 0;
    const written = new Uint8Array(bound);
    const offsets = new Uint32Array(ranks.length + 1);
    let at = 0;
    let maxTokenBytes = 0;
    for (let rank = 0; rank < ranks.length; rank++) {
      offsets[rank] = at;
      const value = ranks[rank];
      const start = at;
      if (typeof value === 'string') at += utf8Into(value, 0, value.length, written.subarray(at));
      else if (isByteList(value)) for (const byte of value) written[at++] = byte;
      maxTokenBytes = Math.max(maxTokenBytes, at - start);
    }
    offsets[ranks.length] = at;
    // A table at most ~40 % full keeps probe runs short.
    let size = 1;
    while (size < ranks.length * 2.5) size *= 2;
    const packed = new PackedRanks(written.slice(0, at), offsets, new Int32Array(size), maxTokenBytes);
    for (let rank = 0; rank < ranks.length; rank++) packed.insert(rank);
    return packed;
  }

  /** The rank of `run[start..end)`, or -1 if those bytes are no token. */
  rankOf(run: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length > this.maxTokenBytes || length === 0) return -1;
    const mask = this.slots.length - 1;
    for (let slot = hashBytes(run, start, end) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === 0) return -1;
      const rank = entry - 1;
      if (this.sameBytes(rank, run, start, length)) return rank;
    }
  }

  private insert(rank: number): void {
    const start = this.offsets[rank];
    const end = this.offsets[rank + 1];
    // An unused rank, or bytes another rank has already (the first keeps them, as the library's Map would).
    if (end === start || this.rankOf(this.bytes, start, end) !== -1) return;
    const mask = this.slots.length - 1;
    let slot = hashBytes(this.bytes, start, end) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = rank + 1;
  }

  private sameBytes(rank: number, run: Uint8Array, start: number, length: number): boolean {
    const from = this.offsets[rank];
    if (this.offsets[rank + 1] - from !== length) return false;
    for (let i = 0; i < length; i++) if (this.bytes[from + i] !== run[start + i]) return false;
    return true;
  }
}

const isByteList = (value: unknown): value is number[] => Array.isArray(value) && value.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255);

/**
 * 32-bit FNV-1a over a run of bytes, its multiplication by the FNV prime written as shifts and adds
 * (`Math.imul` is not inlined in every realm: under Jest's VM context it made a lookup 5 times slower).
 */
function hashBytes(run: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) {
    hash ^= run[i];
    hash = (hash + (hash << 1) + (hash << 4) + (hash << 7) + (hash << 8) + (hash << 24)) | 0;
  }
  return hash >>> 0;
}

/**
 * Writes text[start..end) into `out` from 0 as UTF-8 (a lone surrogate as U+FFFD, as `TextEncoder`
 * does) and returns the byte count. `out` must hold 3 bytes per code unit.
 */
export function utf8Into(text: string, start: number, end: number, out: Uint8Array): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      out[n++] = code;
    } else if (code < 0x800) {
      out[n++] = 0xc0 | (code >> 6);
      out[n++] = 0x80 | (code & 0x3f);
    } else {
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          i++;
          out[n++] = 0xf0 | (code >> 18);
          out[n++] = 0x80 | ((code >> 12) & 0x3f);
          out[n++] = 0x80 | ((code >> 6) & 0x3f);
          out[n++] = 0x80 | (code & 0x3f);
          continue;
        }
        code = 0xfffd;
      }
      out[n++] = 0xe0 | (code >> 12);
      out[n++] = 0x80 | ((code >> 6) & 0x3f);
      out[n++] = 0x80 | (code & 0x3f);
    }
  }
  return n;
}

/**
 * How many tokens byte-pair merging makes of run[0..length): the library's `bytePairMerge` (the
 * adjacent pair of lowest rank merges first, the leftmost of equal ranks), counting the parts instead
 * of listing them. `starts` and `pairRanks` are scratch space of at least length + 1 entries.
 */
export function mergedTokenCount(ranks: PackedRanks, run: Uint8Array, length: number, starts: Int32Array, pairRanks: Int32Array): number {
  if (length <= 1) return length;
  const NONE = 0x7fffffff;
  // parts = the number of pieces; piece i is run[starts[i]..starts[i + 1]); pairRanks[i] ranks pieces i and i + 1 joined.
  let parts = length;
  for (let i = 0; i <= length; i++) starts[i] = i;
  const pairRank = (i: number): number => {
    if (i + 2 > parts) return NONE;
    const rank = ranks.rankOf(run, starts[i], starts[i + 2]);
    return rank === -1 ? NONE : rank;
  };
  for (let i = 0; i < parts; i++) pairRanks[i] = pairRank(i);
  while (parts > 1) {
    let lowest = NONE;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      if (pairRanks[i] < lowest) {
        lowest = pairRanks[i];
        at = i;
      }
    }
    if (at === -1) break;
    // Join pieces at and at + 1: drop the boundary between them.
    starts.copyWithin(at + 1, at + 2, parts + 1);
    pairRanks.copyWithin(at + 1, at + 2, parts);
    parts -= 1;
    pairRanks[at] = pairRank(at);
    if (at > 0) pairRanks[at - 1] = pairRank(at - 1);
  }
  return parts;
}
