import { forEachKeywordWindow, isAlnumCode, isLetterCode, lowerCode, matchSpans, maxOf, minOf } from '../text-utils';
import { PiiDetector, PiiSpan } from './types';

/**
 * ICD-10 codes: `E11.9`, `J45.909` (letter, two digits, a dot and 1-4 characters) anywhere;
 * short codes such as `I10` only after a diagnosis keyword (a letter and two digits alone are too
 * common: paper sizes, vitamins, aircraft). Version strings such as `V10.2.1` are not codes.
 */
const ICD_DOTTED = /(?<![A-Za-z0-9.])[A-Z]\d{2}\.[0-9A-Z]{1,4}(?![A-Za-z0-9]|\.\d)/g;
const ICD_KEYWORD = /\b(?:icd-10-cm|icd-10|icd10|icd|diagnosis|diagnosed|diagnoses|diagnose|diagnostic|dx)\b/gi;
const ICD_CODE = /(?<![A-Za-z0-9.])(?:[A-Z]\d{2}\.[0-9A-Z]{1,4}|[A-Z]\d{2})(?![A-Za-z0-9]|\.\d)/g;

export const icd10Detector: PiiDetector = {
  type: 'icd10_code',
  find: (text) => {
    const spans = text.includes('.') ? matchSpans(ICD_DOTTED, text) : [];
    forEachKeywordWindow(ICD_KEYWORD, text, 60, (start, end) => {
      for (const code of matchSpans(ICD_CODE, text.slice(start, end))) {
        if (!spans.some((span) => span.start === start + code.start)) spans.push({ start: start + code.start, end: start + code.end });
      }
    });
    return spans;
  },
};

/** An amount with a dose unit. */
const DOSE = /(?<![A-Za-z0-9.,])\d{1,5}(?:[.,]\d{1,3}|) ?(?:mcg|mg|µg|ug|ml|iu|units|unit|tablets|tablet|capsules|capsule|puffs|drops)(?![A-Za-z])/gi;
/** Context words count within this many characters before or after a dose. */
const DOSE_CONTEXT_CHARS = 48;

const DRUG_NAMES = new Set(
  (
    'aspirin ibuprofen paracetamol acetaminophen amoxicillin metformin insulin warfarin lisinopril atorvastatin ' +
    'simvastatin omeprazole levothyroxine amlodipine metoprolol prednisone prednisolone gabapentin sertraline ' +
    'fluoxetine citalopram escitalopram tramadol codeine morphine oxycodone hydrocodone diazepam lorazepam alprazolam ' +
    'clonazepam furosemide hydrochlorothiazide losartan valsartan clopidogrel heparin enoxaparin methotrexate ' +
    'adalimumab semaglutide salbutamol albuterol montelukast cetirizine loratadine diphenhydramine naproxen diclofenac ' +
    'ciprofloxacin doxycycline azithromycin cephalexin penicillin lithium quetiapine olanzapine risperidone aripiprazole ' +
    'venlafaxine duloxetine bupropion mirtazapine trazodone zolpidem methylphenidate dexamethasone hydrocortisone ' +
    'levetiracetam lamotrigine valproate carbamazepine phenytoin topiramate allopurinol colchicine tamsulosin ' +
    'finasteride sildenafil tadalafil ondansetron metoclopramide pantoprazole esomeprazole famotidine digoxin ' +
    'amiodarone propranolol atenolol bisoprolol carvedilol spironolactone rivaroxaban apixaban dabigatran ' +
    'empagliflozin dapagliflozin sitagliptin glipizide gliclazide liraglutide tirzepatide vancomycin fentanyl'
  ).split(' '),
);
const DRUG_SUFFIXES = [
  'pril', 'olol', 'statin', 'formin', 'cillin', 'mycin', 'azole', 'sartan', 'dipine', 'oxetine', 'triptan', 'tidine',
  'cycline', 'floxacin', 'ciclovir', 'navir', 'mab', 'azepam', 'azolam', 'codone', 'profen', 'fenac', 'olone', 'parin',
  'gliptin', 'gliflozin', 'flozin', 'glutide', 'thiazide', 'semide', 'xaban', 'gatran', 'setron', 'lukast', 'tadine',
];
/** Dosing verbs, frequencies and routes. */
const DOSING_WORDS = new Set(
  (
    'take taking takes took prescribed prescribe prescription dose dosage dosing administer administered inject ' +
    'injected inhale daily bid tid qid qd qhs qam qpm prn po iv im sc sq subcut subcutaneous orally oral twice ' +
    'once thrice every nightly hourly weekly q4h q6h q8h q12h q24h bedtime'
  ).split(' '),
);

function isContextWord(word: string): boolean {
  if (DRUG_NAMES.has(word) || DOSING_WORDS.has(word)) return true;
  return word.length >= 6 && DRUG_SUFFIXES.some((suffix) => word.endsWith(suffix));
}

/** A word's length and first two characters, lower case. */
const headKey = (length: number, first: number, second: number): number => length * 65536 + first * 256 + second;
/** A word's last three characters, lower case. */
const tailKey = (a: number, b: number, c: number): number => a * 65536 + b * 256 + c;

/** Keys every context word has: a word without one of them is not looked up (no substring, no lower-casing). */
const HEAD_KEYS = new Set([...DRUG_NAMES, ...DOSING_WORDS].map((word) => headKey(word.length, word.charCodeAt(0), word.charCodeAt(1))));
const TAIL_KEYS = new Set(DRUG_SUFFIXES.map((s) => tailKey(s.charCodeAt(s.length - 3), s.charCodeAt(s.length - 2), s.charCodeAt(s.length - 1))));

/** Whether text[start, end) (letters and digits, starting with a letter) is a context word. */
function contextWordAt(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < 2 || length > 24) return false;
  const head = HEAD_KEYS.has(headKey(length, lowerCode(text.charCodeAt(start)), lowerCode(text.charCodeAt(start + 1))));
  const tail =
    length >= 6 &&
    TAIL_KEYS.has(tailKey(lowerCode(text.charCodeAt(end - 3)), lowerCode(text.charCodeAt(end - 2)), lowerCode(text.charCodeAt(end - 1))));
  return (head || tail) && isContextWord(text.slice(start, end).toLowerCase());
}

/**
 * The context words of a text, found lazily from left to right for windows that move forward
 * through it: each character is read at most twice, however many doses there are.
 */
class ContextWords {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private head = 0;
  private scanned = 0;

  constructor(private readonly text: string) {}

  /** Records the context words that start in text[max(from, scanned), to); stops early at the first with `firstOnly`. */
  private scan(from: number, to: number, firstOnly: boolean): void {
    const text = this.text;
    let i = this.scanned;
    if (i < from) {
      i = from;
      while (i > this.scanned && isAlnumCode(text.charCodeAt(i - 1))) i--;
    }
    while (i < to) {
      if (!isAlnumCode(text.charCodeAt(i))) {
        i++;
        continue;
      }
      const start = i;
      while (i < text.length && isAlnumCode(text.charCodeAt(i))) i++;
      if (isLetterCode(text.charCodeAt(start)) && contextWordAt(text, start, i)) {
        this.starts.push(start);
        this.ends.push(i);
        if (firstOnly) break;
      }
    }
    if (i > this.scanned) this.scanned = i;
  }

  /** Whether a context word lies in text[from, to); `from` must not decrease between calls. */
  within(from: number, to: number): boolean {
    if (to > this.scanned) this.scan(from, to, false);
    while (this.head < this.ends.length && this.ends[this.head] <= from) this.head++;
    return this.head < this.starts.length && this.starts[this.head] < to;
  }

  /** Start of the first context word starting at or after `from`, or -1. */
  nextFrom(from: number): number {
    const last = this.starts.length - 1;
    if (last >= 0 && this.starts[last] >= from) {
      let k = this.head;
      while (this.starts[k] < from) k++;
      return this.starts[k];
    }
    const before = this.starts.length;
    this.scan(from, this.text.length, true);
    return this.starts.length > before ? this.starts[this.starts.length - 1] : -1;
  }
}

/** Every dose unit holds one of these (case-insensitive): a text without one has no dose. */
const UNIT_HINT = /mcg|mg|µg|ug|ml|iu|unit|tablet|capsule|puffs|drops/i;
/** Longest dose: five digits, a separator and three decimals, a space and `capsules`. */
const MAX_DOSE = 18;

/**
 * Medication dosages: an amount with a dose unit (mg, mcg, ml, IU, units, tablets, ...) with a
 * drug name (list and common drug-name suffixes), a dosing verb, or a frequency or route
 * ("twice daily", "bid", "po") within 48 characters. Doses are only looked for within reach of
 * a context word: after a dose without one, the scan resumes just before the next context word.
 */
export const medicationDetector: PiiDetector = {
  type: 'medication_dosage',
  find: (text) => {
    const spans: PiiSpan[] = [];
    if (!UNIT_HINT.test(text)) return spans;
    const context = new ContextWords(text);
    const first = context.nextFrom(0);
    if (first < 0) return spans;
    DOSE.lastIndex = maxOf(first - DOSE_CONTEXT_CHARS - MAX_DOSE, 0);
    let match: RegExpExecArray | null;
    while ((match = DOSE.exec(text)) !== null) {
      const to = minOf(match.index + match[0].length + DOSE_CONTEXT_CHARS, text.length);
      if (context.within(maxOf(match.index - DOSE_CONTEXT_CHARS, 0), to)) {
        spans.push({ start: match.index, end: match.index + match[0].length });
        continue;
      }
      // No context word reaches this dose: the next one that can be reached starts at or after `to`.
      const next = context.nextFrom(to);
      if (next < 0) break;
      DOSE.lastIndex = maxOf(DOSE.lastIndex, next - DOSE_CONTEXT_CHARS - MAX_DOSE);
    }
    return spans;
  },
};
