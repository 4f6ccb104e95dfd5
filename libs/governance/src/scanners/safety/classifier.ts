import { countBelow, maxOf, minOf } from '../text-utils';
import { normalizedTextOf } from './normalize';
import { MAX_RESCORED_PER_PATH, SafetyFinding, SafetyStage, SafetyTextInput } from './types';

/**
 * Stage 4.7, the built-in deterministic scorer. Before a 4.5/4.6 finding blocks, its context is
 * read: inside a code block or inline code, inside quotes or a blockquote, in a question about
 * attacks ("What is prompt injection, e.g. 'ignore previous instructions'?"), under educational
 * framing, or negated ("never reveal your system prompt"). Each cue lowers a score that starts at
 * 1; a high finding still blocks while its score stays above CLASSIFIER_BLOCK_THRESHOLD. One cue
 * alone does not clear a finding except a question about attacks or a negation; two cues do, as
 * long as one of them is more than framing (talk about attacks nearby, educational wording).
 * Hidden or encoded findings (`reclassifiable: false`) are never lowered; medium findings never
 * block and are not re-scored (score 1, no reasons); beyond MAX_RESCORED_PER_PATH high findings
 * in one field the rest are not re-scored either and keep blocking.
 */

export type ClassifierReason =
  | 'code_block'
  | 'inline_code'
  | 'quoted'
  | 'blockquote'
  | 'question_about_attack'
  | 'discusses_attacks'
  | 'educational'
  | 'negated';

export const CLASSIFIER_WEIGHTS: Readonly<Record<ClassifierReason, number>> = Object.freeze({
  code_block: 0.3,
  inline_code: 0.3,
  quoted: 0.3,
  blockquote: 0.2,
  question_about_attack: 0.5,
  discusses_attacks: 0.3,
  educational: 0.3,
  negated: 0.6,
});

/** Framing alone (talk about attacks, a classroom) never clears a finding: anyone can add it. */
const FRAMING_ONLY: readonly ClassifierReason[] = ['discusses_attacks', 'educational'];
const FRAMING_FLOOR = 0.7;

export const CLASSIFIER_BLOCK_THRESHOLD = 0.5;

export interface ClassifiedFinding extends SafetyFinding {
  /** 1 = clearly meant, 0 = clearly benign. */
  score: number;
  /** High severity and a score above the threshold. */
  blocks: boolean;
  reasons: readonly ClassifierReason[];
}

/** The reasons of every finding that was not re-scored: one shared empty list (a 1 MB text can hold 100,000 findings). */
const NO_REASONS: readonly ClassifierReason[] = Object.freeze([]);

const WINDOW = 300;
const META_TERMS =
  /\b(?:prompt injections?|injection attacks?|injections?|jailbreak(?:s|ing)?|dan prompts?|adversarial prompts?|red[ -]team(?:ing)?|attacks?|attackers?|malicious prompts?|exploits?|this (?:phrase|prompt|string|attack|technique|message)|such (?:phrases|prompts|attacks|messages))\b/i;
const QUESTION_START =
  /^(?:what|how|why|when|which|who|is|are|was|were|can|could|does|do|did|should|would|explain|define|describe|classify|identify|list|give (?:me )?(?:an? )?examples?|show (?:me )?(?:an? )?examples?|tell me about)\b/i;
const EDUCATIONAL =
  /\b(?:for (?:a|my|our|the) (?:class|course|lecture|paper|thesis|research|training|workshop|presentation|blog post|article|talk)|security (?:training|awareness|research|researchers?|team|course|class|lesson)|explain (?:why|how|what)|in this (?:article|tutorial|paper|course|lesson|post)|researchers?|students?|educational|awareness|detect(?:ion|ing)?|defen[cs]es?|mitigat(?:e|ion|ing)|guardrails?|classifier)\b/i;
const LEADING_MARKUP = /^[\s"'`>*#(-]{1,10}/;
const NEGATION_WORD = /\b(?:never|don't|do not|must not|mustn't|should not|shouldn't|won't|will not|cannot|can't|not to|avoid|refuse to)\b/i;

/**
 * Positions of everything the cues look at, found in one pass per kind over the text, so that
 * each finding is judged with binary searches: linear in the text plus logarithmic per finding.
 */
interface TextIndex {
  text: string;
  newlines: number[];
  /** Sentence ends: . ! ? and newlines. */
  boundaries: number[];
  fences: number[];
  doubleQuotes: number[];
  backticks: number[];
  /** Opening and closing typographic quotes by character. */
  marks: Map<string, number[]>;
  /** Start offsets of meta terms and educational wording; end offsets of negations. */
  meta: number[];
  educational: number[];
  negations: number[];
}

const TYPOGRAPHIC = '\u201C\u201D\u201E\u00AB\u00BB\u300C\u300D';
const PAIRED_QUOTES: readonly [string, string][] = [
  ['\u201C', '\u201D'],
  ['\u201E', '\u201C'],
  ['\u00AB', '\u00BB'],
  ['\u300C', '\u300D'],
];

/**
 * The word lists as global scans. Every alternative starts with a word of two or more letters: the
 * `\b(?=[a-z][a-z])` guard rejects most positions before the alternation (a look-behind guard, or
 * V8's own first-character filter, cost 5-10 ms per MB each). Compiled once.
 */
const wordScan = (pattern: RegExp): RegExp => new RegExp(`\\b(?=[a-z][a-z])${pattern.source.slice(2)}`, 'gi');
const META_SCAN = wordScan(META_TERMS);
const EDUCATIONAL_SCAN = wordScan(EDUCATIONAL);
const NEGATION_SCAN = wordScan(NEGATION_WORD);

/** Longer than any match of the word lists (and the character after it that `\b` reads). */
const MATCH_MARGIN = 64;

/**
 * Start offsets (end offsets with `useEnd`) of a word scan's matches that start before `limit`. The
 * scan reads text[0, limit + MATCH_MARGIN): the same matches start before `limit` as in the whole text.
 */
function matchStarts(scan: RegExp, text: string, limit: number, useEnd = false): number[] {
  const out: number[] = [];
  const scanned = limit + MATCH_MARGIN < text.length ? text.slice(0, limit + MATCH_MARGIN) : text;
  scan.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = scan.exec(scanned)) !== null && match.index < limit) {
    out.push(useEnd ? match.index + match[0].length : match.index);
  }
  return out;
}

/** The punctuation positions of text[0, limit). A function of its own: V8 keeps its optimized loop. */
function indexCharacters(index: TextIndex, text: string, limit: number): void {
  for (let i = 0; i < limit; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) {
      index.newlines.push(i);
      index.boundaries.push(i);
    } else if (code === 46 || code === 33 || code === 63) index.boundaries.push(i);
    else if (code === 34) index.doubleQuotes.push(i);
    else if (code === 96) {
      index.backticks.push(i);
      if (text.startsWith('```', i) && text.charCodeAt(i - 1) !== 96) index.fences.push(i);
    } else if (code > 0xaa && TYPOGRAPHIC.includes(text[i])) {
      const list = index.marks.get(text[i]) ?? [];
      list.push(i);
      index.marks.set(text[i], list);
    }
  }
}

/**
 * The index of text[0, limit): a finding ending at `end` reads nothing at or beyond
 * `end + WINDOW` (line and sentence ends are capped there), so `limit` is the furthest such reach
 * of the findings to re-score, and a flood of findings early in a text does not index the rest.
 */
function buildIndex(text: string, limit: number): TextIndex {
  const end = minOf(limit, text.length);
  const index: TextIndex = {
    text,
    newlines: [],
    boundaries: [],
    fences: [],
    doubleQuotes: [],
    backticks: [],
    marks: new Map(),
    meta: matchStarts(META_SCAN, text, end),
    educational: matchStarts(EDUCATIONAL_SCAN, text, end),
    negations: matchStarts(NEGATION_SCAN, text, end, true),
  };
  indexCharacters(index, text, end);
  return index;
}

function countIn(list: readonly number[], from: number, to: number): number {
  return maxOf(countBelow(list, to) - countBelow(list, from), 0);
}

/** Largest entry below `value`, or -1. */
function lastBelow(list: readonly number[], value: number): number {
  const i = countBelow(list, value);
  return i > 0 ? list[i - 1] : -1;
}

function isQuoted(index: TextIndex, start: number, end: number, lineStart: number, lineEnd: number): boolean {
  const { text } = index;
  if (countIn(index.doubleQuotes, lineStart, start) % 2 === 1 && countIn(index.doubleQuotes, end, lineEnd) > 0) return true;
  for (const [open, close] of PAIRED_QUOTES) {
    const opens = index.marks.get(open);
    const closes = index.marks.get(close);
    if (!opens || !closes) continue;
    const opened = lastBelow(opens, start);
    if (opened >= lineStart && lastBelow(closes, start) < opened && countIn(closes, end, lineEnd) > 0) return true;
  }
  return singleQuoteAt(text, start - 1, lineStart, lineEnd) || singleQuoteAt(text, start - 2, lineStart, lineEnd)
    ? singleQuoteAt(text, end, lineStart, lineEnd) || singleQuoteAt(text, end + 1, lineStart, lineEnd)
    : false;
}

function singleQuoteAt(text: string, i: number, lineStart: number, lineEnd: number): boolean {
  if (i < lineStart || i >= lineEnd) return false;
  const code = text.charCodeAt(i);
  return code === 39 || code === 0x2018 || code === 0x2019;
}

function reasonsFor(index: TextIndex, finding: SafetyFinding): ClassifierReason[] {
  const { text } = index;
  const { start, end } = finding;
  const reasons: ClassifierReason[] = [];
  const newlineBefore = lastBelow(index.newlines, start);
  const lineStart = maxOf(maxOf(newlineBefore + 1, start - WINDOW), 0);
  const newlineAfter = index.newlines[countBelow(index.newlines, end)] ?? text.length;
  const lineEnd = minOf(minOf(newlineAfter, end + WINDOW), text.length);
  if (countIn(index.fences, 0, start) % 2 === 1) reasons.push('code_block');
  else if (countIn(index.backticks, lineStart, start) % 2 === 1 && countIn(index.backticks, end, lineEnd) > 0) reasons.push('inline_code');
  if (isQuoted(index, start, end, lineStart, lineEnd)) reasons.push('quoted');
  if (lineStart === newlineBefore + 1 && (text[lineStart] === '>' || (text[lineStart] === ' ' && text[lineStart + 1] === '>'))) {
    reasons.push('blockquote');
  }

  const sentenceStart = maxOf(maxOf(lastBelow(index.boundaries, start) + 1, start - WINDOW), 0);
  const boundaryAfter = index.boundaries[countBelow(index.boundaries, end)] ?? text.length;
  const sentenceEnd = minOf(minOf(boundaryAfter + 1, end + WINDOW), text.length);
  const metaInSentence = countIn(index.meta, sentenceStart, start) + countIn(index.meta, end, sentenceEnd) > 0;
  if (metaInSentence && QUESTION_START.test(text.slice(sentenceStart, minOf(sentenceStart + 60, start)).replace(LEADING_MARKUP, ''))) {
    reasons.push('question_about_attack');
  }
  else if (countIn(index.meta, start - WINDOW, start) + countIn(index.meta, end, end + WINDOW) > 0) reasons.push('discusses_attacks');
  if (countIn(index.educational, start - WINDOW, start) + countIn(index.educational, end, end + WINDOW) > 0) reasons.push('educational');
  if (countIn(index.negations, maxOf(start - 20, sentenceStart), start + 1) > 0) reasons.push('negated');
  return reasons;
}

/** A classified copy of a finding, built field by field (object spread is several times slower on hot paths). */
export function classified(finding: SafetyFinding, score: number, reasons: readonly ClassifierReason[], blocks: boolean): ClassifiedFinding {
  return {
    stage: finding.stage,
    rule: finding.rule,
    category: finding.category,
    severity: finding.severity,
    path: finding.path,
    start: finding.start,
    end: finding.end,
    reclassifiable: finding.reclassifiable,
    score,
    blocks,
    reasons,
  };
}

export interface ClassifyOptions {
  threshold?: number;
}

/** Re-scores 4.5/4.6 findings against their texts (the same input objects the scanners read). */
export function classifyFindings(
  texts: readonly SafetyTextInput[],
  findings: readonly SafetyFinding[],
  options: ClassifyOptions = {},
): ClassifiedFinding[] {
  const threshold = options.threshold ?? CLASSIFIER_BLOCK_THRESHOLD;
  const byPath = new Map(texts.map((input) => [input.path, input]));
  // First the findings to re-score (the first MAX_RESCORED_PER_PATH high, re-classifiable ones of
  // each field) and how far into each text their cues reach, so each index covers only that much.
  const rescore = new Uint8Array(findings.length);
  const rescored = new Map<string, number>();
  const reach = new Map<string, number>();
  for (let i = 0; i < findings.length; i++) {
    const { severity, reclassifiable, path, end } = findings[i];
    if (severity !== 'high' || !reclassifiable || !byPath.has(path)) continue;
    const seen = rescored.get(path) ?? 0;
    if (seen >= MAX_RESCORED_PER_PATH) continue;
    rescored.set(path, seen + 1);
    rescore[i] = 1;
    reach.set(path, maxOf(reach.get(path) ?? 0, end + WINDOW + 1));
  }
  const indexes = new Map<string, TextIndex>();
  const out: ClassifiedFinding[] = new Array(findings.length);
  for (let i = 0; i < findings.length; i++) {
    const finding = findings[i];
    if (rescore[i] === 0) {
      // Not re-scored: score 1, no reasons.
      out[i] = classified(finding, 1, NO_REASONS, finding.severity === 'high' && 1 > threshold);
      continue;
    }
    let index = indexes.get(finding.path);
    if (!index) {
      index = buildIndex(normalizedTextOf(byPath.get(finding.path) as SafetyTextInput), reach.get(finding.path) as number);
      indexes.set(finding.path, index);
    }
    const reasons = reasonsFor(index, finding);
    let score = 1;
    for (const reason of reasons) score -= CLASSIFIER_WEIGHTS[reason];
    if (reasons.length > 0 && reasons.every((reason) => FRAMING_ONLY.includes(reason))) score = maxOf(score, FRAMING_FLOOR);
    score = maxOf(score, 0);
    out[i] = classified(finding, score, reasons, finding.severity === 'high' && score > threshold);
  }
  return out;
}

export interface StageDecision {
  decision: 'block' | 'allow';
  /** Findings that block the request. */
  blocking: ClassifiedFinding[];
  /** Findings to log: medium ones and high ones the classifier cleared. */
  logged: ClassifiedFinding[];
}

/** The decision of stage 4.5 (`content_safety`) or 4.6 (`security_scan`) after re-scoring. */
export function stageDecision(classified: readonly ClassifiedFinding[], stage: SafetyStage): StageDecision {
  const own = classified.filter((finding) => finding.stage === stage);
  const blocking = own.filter((finding) => finding.blocks);
  return { decision: blocking.length > 0 ? 'block' : 'allow', blocking, logged: own.filter((finding) => !finding.blocks) };
}

export interface FindingSummary {
  stage: SafetyStage;
  category: SafetyFinding['category'];
  rule: string;
  severity: SafetyFinding['severity'];
  path: string;
  count: number;
}

/** Findings grouped by stage, rule and field with counts: what logs and `guardrail.triggered` events carry. */
export function summarizeFindings(findings: readonly SafetyFinding[]): FindingSummary[] {
  const groups = new Map<string, FindingSummary>();
  for (const f of findings) {
    const key = `${f.stage}\u0000${f.rule}\u0000${f.severity}\u0000${f.path}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { stage: f.stage, category: f.category, rule: f.rule, severity: f.severity, path: f.path, count: 1 });
  }
  return [...groups.values()];
}
