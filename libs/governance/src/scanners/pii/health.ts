import { forEachKeywordWindow, isAlnumCode, isLetterCode, matchOffsets, maxOf, minOf } from '../text-utils';
import { PiiDetector } from './types';

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
    const offsets = text.includes('.') ? matchOffsets(ICD_DOTTED, text) : [];
    forEachKeywordWindow(ICD_KEYWORD, text, 60, (start, end) => {
      for (const at of matchOffsets(ICD_CODE, text.slice(start, end))) {
        if (!offsets.includes(start + at)) offsets.push(start + at);
      }
    });
    return offsets;
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

/**
 * A lazy index of the context words of a text for windows that move forward through it: each
 * character is read at most twice, however many doses there are. Returns `within(from, to)`:
 * whether a context word lies in text[from, to); `from` must not decrease between calls.
 */
function contextWords(text: string): (from: number, to: number) => boolean {
  const starts: number[] = [];
  const ends: number[] = [];
  let head = 0;
  let scanned = 0;
  const scan = (from: number, to: number): void => {
    let i = scanned;
    if (i < from) {
      i = from;
      while (i > scanned && isAlnumCode(text.charCodeAt(i - 1))) i--;
    }
    while (i < to) {
      if (!isAlnumCode(text.charCodeAt(i))) {
        i++;
        continue;
      }
      const start = i;
      while (i < text.length && isAlnumCode(text.charCodeAt(i))) i++;
      const length = i - start;
      if (length >= 2 && length <= 24 && isLetterCode(text.charCodeAt(start)) && isContextWord(text.slice(start, i).toLowerCase())) {
        starts.push(start);
        ends.push(i);
      }
    }
    if (i > scanned) scanned = i;
  };
  return (from, to) => {
    if (to > scanned) scan(from, to);
    while (head < ends.length && ends[head] <= from) head++;
    return head < starts.length && starts[head] < to;
  };
}

/**
 * Medication dosages: an amount with a dose unit (mg, mcg, ml, IU, units, tablets, ...) with a
 * drug name (list and common drug-name suffixes), a dosing verb, or a frequency or route
 * ("twice daily", "bid", "po") within 48 characters.
 */
export const medicationDetector: PiiDetector = {
  type: 'medication_dosage',
  find: (text) => {
    const within = contextWords(text);
    return matchOffsets(DOSE, text, (m) =>
      within(maxOf(m.index - DOSE_CONTEXT_CHARS, 0), minOf(m.index + m[0].length + DOSE_CONTEXT_CHARS, text.length)),
    );
  },
};
