import { countBelow, maxOf, minOf, NextOccurrence } from '../text-utils';
import { FindingQuota, SafetyCategory, SafetyFinding, SafetySeverity, SafetyStage } from './types';

/**
 * Phrase rules for prompt injection, jailbreaks, system-prompt extraction, fake role delimiters
 * and exfiltration intent. Patterns run on normalized text (single spaces or newlines between
 * words), are case-insensitive unless their flags say otherwise, and are built from alternations of
 * literal words with bounded quantifiers only, so each runs in linear time. `keywords` is a cheap
 * pre-check for rules that run on their own: such a rule runs only when the lower-cased text
 * contains one of them, so every match of its pattern must contain one.
 */

export interface PhraseRule {
  id: string;
  category: SafetyCategory;
  severity: SafetySeverity;
  keywords: readonly string[];
  pattern: RegExp;
}

/** A space in the source matches the one space or newline that normalization leaves between words. */
function phrase(source: string, flags = 'gi'): RegExp {
  return new RegExp(source.replace(/ /g, '[ \\n]'), flags);
}

// Not "my": "please ignore my previous instructions" is a user correcting themselves.
const DETERMINER = '(?:all |any |every )?(?:of )?(?:the |your |these |those |its )?';
const EARLIER = '(?:previous|prior|above|preceding|earlier|initial|original|system|developer|former|foregoing|existing)';
const INSTRUCTIONS = '(?:instructions?|prompts?|rules|directives?|guidelines|directions|commands|guidance|constraints|programming)';
const PERSONA = '(?:unrestricted|unfiltered|uncensored|jailbroken|evil|amoral|unethical|rogue|unaligned|unlimited)';
const REVEAL =
  '(?:reveal|print|show|display|output|repeat|dump|leak|expose|tell me|give me|write out|spell out|recite|copy|paste|translate)';
const PROMPT_ADJECTIVE = '(?:full |entire |complete |exact |original |initial |hidden |secret |confidential |verbatim )?';
/** Role-play framing, and what it must be followed by within 80 characters of the same line. */
const ROLEPLAY_HEAD =
  "(?:hypothetically|in a hypothetical|in a fictional (?:world|story|scenario)|let's play a game|roleplay|role-play|for a story)";
const ROLEPLAY_TAIL = '(?:no (?:rules|restrictions|limits|filters)|without (?:rules|restrictions|limits|filters|censorship)|anything goes)';
const ROLEPLAY_GAP = 80;
/** What "the contents of ..." may name in an exfiltration phrase: the conversation and what the model holds. */
const CONVERSATION_DATA =
  '(?:the |this |that |your |our |my )?(?:entire |full |whole |complete |current |previous |above )?(?:conversation|chat history|chat log|chat|system prompt|system message|prompt|instructions|context window|context|session|thread|previous messages|messages|history|memory)';
const SECRET_PROMPT =
  '(?:system prompt|system message|system instructions|initial instructions|original instructions|hidden instructions|developer message|developer instructions|prompt above|instructions above|hidden prompt)';

export const INJECTION_RULES: readonly PhraseRule[] = Object.freeze([
  {
    id: 'ignore_previous_instructions',
    category: 'prompt_injection',
    severity: 'high',
    keywords: ['ignore', 'disregard', 'forget', 'override', 'bypass', 'skip'],
    pattern: phrase(`\\b(?:ignore|disregard|forget|override|bypass|skip),? ${DETERMINER}${EARLIER} ${INSTRUCTIONS}\\b`),
  },
  {
    id: 'ignore_all_instructions',
    category: 'prompt_injection',
    severity: 'high',
    keywords: ['ignore', 'disregard', 'forget'],
    pattern: phrase(
      '\\b(?:ignore|disregard|forget),? (?:all|any|everything)(?: of)?(?: the| your)? (?:instructions|rules|guidelines|you were told|(?:above|before))\\b',
    ),
  },
  {
    id: 'new_instructions',
    category: 'prompt_injection',
    severity: 'medium',
    keywords: ['new instructions', 'new rules', 'from now on', 'new role', 'new task'],
    pattern: phrase('\\b(?:(?:your|the) new (?:instructions|rules|role|task) (?:are|is)|from now on,? you (?:are|will|must|shall))\\b'),
  },
  {
    // Upper-case DAN only: "You are Dan, our support agent" is a name, not a jailbreak.
    id: 'dan_persona',
    category: 'jailbreak',
    severity: 'high',
    keywords: ['dan'],
    pattern: phrase("\\b(?:[Yy]ou are|[Yy]ou're|[Yy]ou will be|[Aa]ct as|[Pp]retend to be|[Bb]ecome) (?:now )?DAN\\b|\\bDAN [Mm]ode\\b", 'g'),
  },
  {
    id: 'do_anything_now',
    category: 'jailbreak',
    severity: 'high',
    keywords: ['do anything now', 'jailbreak mode', 'jailbroken mode'],
    pattern: phrase('\\b(?:do anything now|jailbreak mode|jailbroken mode)\\b'),
  },
  {
    id: 'unrestricted_persona',
    category: 'jailbreak',
    severity: 'high',
    keywords: PERSONA.slice(3, -1).split('|'),
    pattern: phrase(
      `\\b(?:you are|you're|act as|behave as|behave like|pretend to be|pretend you are|roleplay as|role-play as|play the role of|respond as|become) (?:now )?(?:an? |the )?${PERSONA} (?:ai|assistant|model|chatbot|version|bot|llm|persona)\\b`,
    ),
  },
  {
    id: 'no_restrictions',
    category: 'jailbreak',
    severity: 'high',
    keywords: ['pretend', 'imagine', 'act as if', 'assume'],
    pattern: phrase(
      "\\b(?:pretend|imagine|act as if|assume) (?:that )?you (?:have no|don't have any|do not have any|are free of|are free from|are not bound by|aren't bound by) (?:any )?(?:restrictions|limitations|rules|filters|guidelines|guardrails|content polic(?:y|ies)|ethical guidelines)\\b",
    ),
  },
  {
    id: 'override_safety',
    category: 'jailbreak',
    severity: 'high',
    keywords: ['your safety', 'your content', 'your ethical', 'your moderation'],
    pattern: phrase(
      '\\b(?:override|disable|bypass|turn off|deactivate|ignore|switch off) (?:all )?(?:of )?your (?:safety|content|ethical|moderation) (?:filters?|guidelines|policies|policy|protocols|restrictions|settings|checks|guardrails)\\b',
    ),
  },
  {
    id: 'roleplay_jailbreak',
    category: 'jailbreak',
    severity: 'medium',
    keywords: ['hypothetical', 'fictional', 'roleplay', 'role-play', 'game', 'story'],
    pattern: phrase(`\\b${ROLEPLAY_HEAD}\\b[^\\n]{0,${ROLEPLAY_GAP}}\\b${ROLEPLAY_TAIL}\\b`),
  },
  {
    id: 'reveal_system_prompt',
    category: 'system_prompt_extraction',
    severity: 'high',
    keywords: ['system', 'instructions', 'prompt', 'developer message'],
    pattern: phrase(`\\b${REVEAL} (?:me )?your ${PROMPT_ADJECTIVE}${SECRET_PROMPT}\\b`),
  },
  {
    // "Show the system message in the chat window" is a product question; "your" addresses the model.
    id: 'reveal_the_system_prompt',
    category: 'system_prompt_extraction',
    severity: 'medium',
    keywords: ['system', 'instructions', 'prompt', 'developer message'],
    pattern: phrase(`\\b${REVEAL} (?:me )?the ${PROMPT_ADJECTIVE}${SECRET_PROMPT}\\b`),
  },
  {
    id: 'repeat_text_above',
    category: 'system_prompt_extraction',
    severity: 'high',
    keywords: ['above', 'everything before'],
    pattern: phrase(
      '\\b(?:repeat|print|output|reproduce|recite) (?:back )?(?:all |the |everything )?(?:of )?(?:the )?(?:words|text|everything|content|lines) (?:above|before this)\\b',
    ),
  },
  {
    id: 'ask_system_prompt',
    category: 'system_prompt_extraction',
    severity: 'medium',
    keywords: ['system prompt', 'instructions', 'system message'],
    pattern: phrase(`\\b(?:what is|what's|what are|what were) your ${SECRET_PROMPT}`),
  },
  {
    id: 'special_token',
    category: 'role_delimiter',
    severity: 'high',
    keywords: ['<|', '<<sys>>', '<</sys>>'],
    pattern: /<\|(?:im_start|im_end|im_sep|endoftext|system|user|assistant|eot_id|start_header_id|end_header_id|begin_of_text)\|>|<<\/?SYS>>/gi,
  },
  {
    id: 'fake_role_header',
    category: 'role_delimiter',
    severity: 'medium',
    keywords: ['system', 'instruction', 'inst]', 'assistant'],
    pattern: /(?:^|\n)(?:#{1,4} ?(?:system|instructions?)\b:?|(?:system|assistant) ?:|\[\/?inst\]|<\/?system>)/gi,
  },
  {
    // "of ..." names only conversation data: "email the contents of the report to bob@..." is an errand.
    id: 'send_data_to',
    category: 'exfiltration',
    severity: 'medium',
    keywords: ['send', 'post', 'upload', 'forward', 'email', 'e-mail', 'transmit', 'exfiltrate', 'leak', 'copy', 'submit'],
    pattern: phrase(
      `\\b(?:send|post|upload|forward|email|e-mail|transmit|exfiltrate|leak|copy|submit) (?:all )?(?:of )?(?:the |this |your |my |every |any )?(?:entire |full |whole |complete )?(?:conversation|chat history|chat log|system prompt|context|contents?|data|secrets?|credentials|api keys?|passwords?|tokens|previous messages|messages|files?|documents?|history|memory)(?: of ${CONVERSATION_DATA})? (?:to|into)\\b`,
    ),
  },
]);

/**
 * A rule made of a head, up to `gap` characters of the same line, and a tail (the last tail within
 * reach, as a greedy gap takes). It runs in a pass of its own: the tails of the text are found first
 * (none: the rule cannot match), then the heads, each looked up against the sorted tails. As one
 * regular expression the tail would be retried at each of the `gap` positions after every head: on a
 * text made of heads ("roleplay roleplay ...") tens of steps per character.
 */
interface GappedRule {
  /** Global, case-insensitive, starting and ending with `\b`; no head is longer than `maxHead`. */
  heads: RegExp;
  maxHead: number;
  /** Global, case-insensitive, starting and ending with `\b`; its matches never overlap. */
  tails: RegExp;
  gap: number;
}

const GAPPED: ReadonlyMap<string, GappedRule> = new Map([
  [
    'roleplay_jailbreak',
    { heads: phrase(`\\b${ROLEPLAY_HEAD}\\b`), maxHead: 32, tails: phrase(`\\b${ROLEPLAY_TAIL}\\b`), gap: ROLEPLAY_GAP },
  ],
]);

/**
 * The tail matches of a gapped rule in one text, found on demand from left to right: every tail
 * starting before `searched` is listed. Each part of the text is searched once.
 */
class TailMatches {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  private searched = 0;
  /** The first line break at or after a position (the text length if none); positions never decrease. */
  readonly newlines: NextOccurrence;

  constructor(
    private readonly tails: RegExp,
    private readonly text: string,
  ) {
    this.newlines = new NextOccurrence(text, '\n');
  }

  /** Lists every tail that starts at or before `position`, and the first one after it if there is one. */
  through(position: number): void {
    const { starts, ends } = this;
    while (this.searched < this.text.length && (starts.length === 0 || starts[starts.length - 1] <= position)) {
      this.tails.lastIndex = this.searched;
      const match = this.tails.exec(this.text);
      if (match === null) {
        this.searched = this.text.length;
        return;
      }
      starts.push(match.index);
      ends.push(match.index + match[0].length);
      this.searched = match.index + match[0].length;
    }
  }
}

/** End of the gapped rule's match whose head ends at `headEnd`, or -1 without a tail in reach. */
function gappedEnd(gapped: GappedRule, tails: TailMatches, headEnd: number): number {
  // The gap holds no line break: the tail starts at or before the first one.
  const limit = minOf(headEnd + gapped.gap, tails.newlines.from(headEnd));
  tails.through(limit);
  const index = countBelow(tails.starts, limit + 1) - 1;
  return index >= 0 && tails.starts[index] >= headEnd ? tails.ends[index] : -1;
}

function runGapped(rule: PhraseRule, gapped: GappedRule, stage: SafetyStage, path: string, text: string, findings: SafetyFinding[], quota: FindingQuota): void {
  const tails = new TailMatches(gapped.tails, text);
  tails.through(0);
  if (tails.starts.length === 0) return;
  const heads = gapped.heads;
  heads.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = heads.exec(text)) !== null) {
    const start = match.index;
    const headEnd = start + match[0].length;
    // A line break right after the head leaves an empty gap, and a tail starts with a letter.
    if (text.charCodeAt(headEnd) === 10) continue;
    const end = gappedEnd(gapped, tails, headEnd);
    if (end >= 0) {
      if (!quota.take(rule.id)) return; // the rule's share of findings is full: nothing more to find
      findings.push(toFinding(rule, stage, path, start, end));
      heads.lastIndex = end;
      continue;
    }
    // A later head needs a later tail within its reach: skip the heads that end too far before the next tail.
    tails.through(start);
    const next = countBelow(tails.starts, start + 1);
    if (next === tails.starts.length) break;
    heads.lastIndex = maxOf(start + 1, tails.starts[next] - gapped.gap - gapped.maxHead);
  }
}

interface CompiledRules {
  /** The case-insensitive rules as one alternation, high severity first; `groups[i]` is rule i's capture group. */
  combined: RegExp | null;
  combinedRules: PhraseRule[];
  groups: number[];
  /** Rules with a head, a gap and a tail, each in a pass of its own. */
  gapped: { rule: PhraseRule; gapped: GappedRule }[];
  /** Rules with other flags (case-sensitive ones) run on their own. */
  separate: PhraseRule[];
}

const compiledSets = new WeakMap<readonly PhraseRule[], CompiledRules>();

/** Rules that join the one-pass alternation: case-insensitive ones that start with a word. */
function combinable(rule: PhraseRule): boolean {
  return rule.pattern.flags === 'gi' && rule.pattern.source.startsWith('\\b') && !GAPPED.has(rule.id);
}

function groupCount(source: string): number {
  return (new RegExp(`${source}|`).exec('') as RegExpExecArray).length - 1;
}

/**
 * One pass over the text for all case-insensitive rules instead of one pass per rule: V8 scans
 * one alternation faster than many patterns. A position that two rules could match reports the
 * first (higher severity) rule; overlapping matches of different rules are rare in practice.
 * Compiled once per rule list.
 */
function compile(rules: readonly PhraseRule[]): CompiledRules {
  let compiled = compiledSets.get(rules);
  if (compiled) return compiled;
  const combinedRules = rules
    .filter(combinable)
    .sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'high' ? -1 : 1));
  const groups: number[] = [];
  let next = 1;
  for (const rule of combinedRules) {
    groups.push(next);
    next += 1 + groupCount(rule.pattern.source);
  }
  // Every combined rule starts with `\b` and a word of two or more letters ("e-mail" included). That
  // guard, tested before the alternation, rejects most positions cheaply: V8's own first-character
  // filter for a large case-insensitive alternation lets any character from `@` to `~` through (a text
  // of `@` or `a@` cost 20-40 ms per MB without it).
  const source = `\\b(?=[a-z][a-z-])(?:${combinedRules.map((rule) => `(${rule.pattern.source.slice(2)})`).join('|')})`;
  compiled = {
    combined: combinedRules.length > 0 ? new RegExp(source, 'gi') : null,
    combinedRules,
    groups,
    gapped: rules.flatMap((rule) => {
      const gapped = GAPPED.get(rule.id);
      return gapped ? [{ rule, gapped }] : [];
    }),
    separate: rules.filter((rule) => !combinable(rule) && !GAPPED.has(rule.id)),
  };
  compiledSets.set(rules, compiled);
  return compiled;
}

function toFinding(rule: PhraseRule, stage: SafetyStage, path: string, start: number, end: number): SafetyFinding {
  return { stage, rule: rule.id, category: rule.category, severity: rule.severity, path, start, end, reclassifiable: true };
}

/** The one-pass alternation over a text; each match is attributed to the rule whose group matched. */
function runCombined(compiled: CompiledRules, combined: RegExp, stage: SafetyStage, path: string, text: string, findings: SafetyFinding[], quota: FindingQuota): void {
  const { combinedRules, groups } = compiled;
  combined.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = combined.exec(text)) !== null) {
    let index = 0;
    while (index < groups.length && match[groups[index]] === undefined) index++;
    if (index < groups.length && quota.take(combinedRules[index].id)) {
      findings.push(toFinding(combinedRules[index], stage, path, match.index, match.index + match[0].length));
    }
  }
}

function runSeparate(rule: PhraseRule, stage: SafetyStage, path: string, text: string, findings: SafetyFinding[], quota: FindingQuota): void {
  const pattern = rule.pattern;
  pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    if (match[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    if (!quota.take(rule.id)) return;
    const start = match.index + (text.charCodeAt(match.index) === 10 ? 1 : 0);
    findings.push(toFinding(rule, stage, path, start, match.index + match[0].length));
  }
}

/**
 * Runs phrase rules over one normalized text: the one-pass alternation, then the gapped rules, then
 * the rules that run on their own (their findings follow in that order). `lower` (the lower-cased
 * text) serves the keyword pre-check of rules that run on their own.
 */
export function runPhraseRules(
  rules: readonly PhraseRule[],
  stage: SafetyStage,
  path: string,
  normalized: string,
  lower?: string,
): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  const quota = new FindingQuota();
  const compiled = compile(rules);
  if (compiled.combined) runCombined(compiled, compiled.combined, stage, path, normalized, findings, quota);
  for (const { rule, gapped } of compiled.gapped) runGapped(rule, gapped, stage, path, normalized, findings, quota);
  for (const rule of compiled.separate) {
    lower ??= normalized.toLowerCase();
    if (!rule.keywords.some((keyword) => (lower as string).includes(keyword))) continue;
    runSeparate(rule, stage, path, normalized, findings, quota);
  }
  return findings;
}
