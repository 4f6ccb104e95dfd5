import { SafetyCategory, SafetyFinding, SafetySeverity, SafetyStage } from './types';

/**
 * Phrase rules for prompt injection, jailbreaks, system-prompt extraction, fake role delimiters
 * and exfiltration intent. Patterns run on normalized text (single spaces or newlines between
 * words), are case-insensitive unless their flags say otherwise, and are built from alternations of
 * literal words with bounded quantifiers only, so each runs in linear time. `keywords` is a cheap
 * pre-check for rules that run on their own: such a rule runs only when the lower-cased text
 * contains one of them.
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
    pattern: phrase(
      "\\b(?:hypothetically|in a hypothetical|in a fictional (?:world|story|scenario)|let's play a game|roleplay|role-play|for a story)\\b[^\\n]{0,80}\\b(?:no (?:rules|restrictions|limits|filters)|without (?:rules|restrictions|limits|filters|censorship)|anything goes)\\b",
    ),
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
    keywords: ['system', 'inst]', 'assistant:'],
    pattern: /(?:^|\n)(?:#{1,4} ?(?:system|instructions?)\b:?|(?:system|assistant) ?:|\[\/?inst\]|<\/?system>)/gi,
  },
  {
    id: 'send_data_to',
    category: 'exfiltration',
    severity: 'medium',
    keywords: ['send', 'post', 'upload', 'forward', 'email', 'transmit', 'exfiltrate', 'leak', 'copy'],
    pattern: phrase(
      '\\b(?:send|post|upload|forward|email|e-mail|transmit|exfiltrate|leak|copy|submit) (?:all )?(?:of )?(?:the |this |your |my |every |any )?(?:entire |full |whole |complete )?(?:conversation|chat history|chat log|system prompt|context|contents?|data|secrets?|credentials|api keys?|passwords?|tokens|previous messages|messages|files?|documents?|history|memory) (?:to|into)\\b',
    ),
  },
]);

interface CompiledRules {
  /** The case-insensitive rules as one alternation, high severity first; `groups[i]` is rule i's capture group. */
  combined: RegExp | null;
  combinedRules: PhraseRule[];
  groups: number[];
  /** Rules with other flags (case-sensitive ones) run on their own. */
  separate: PhraseRule[];
}

const compiledSets = new WeakMap<readonly PhraseRule[], CompiledRules>();

/**
 * Rules that join the one-pass alternation: case-insensitive ones that start with a word. Rules
 * starting with punctuation or a line anchor run on their own: in the alternation they would cost
 * V8 its first-character pre-check and slow every position down.
 */
function combinable(rule: PhraseRule): boolean {
  return rule.pattern.flags === 'gi' && rule.pattern.source.startsWith('\\b');
}

function groupCount(source: string): number {
  return (new RegExp(`${source}|`).exec('') as RegExpExecArray).length - 1;
}

/**
 * One pass over the text for all case-insensitive rules instead of one pass per rule: V8 scans
 * one alternation faster than many patterns. A position that two rules could match reports the
 * first (higher severity) rule; overlapping matches of different rules are rare in practice.
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
  // Every combined rule starts with `\b` and a word: one shared "word start" guard in front lets
  // V8 reject most positions on their first character.
  const source = `(?<![a-z0-9_])(?=[a-z])(?:${combinedRules.map((rule) => `(${rule.pattern.source.slice(2)})`).join('|')})`;
  compiled = {
    combined: combinedRules.length > 0 ? new RegExp(source, 'gi') : null,
    combinedRules,
    groups,
    separate: rules.filter((rule) => !combinable(rule)),
  };
  compiledSets.set(rules, compiled);
  return compiled;
}

function toFinding(rule: PhraseRule, stage: SafetyStage, path: string, match: RegExpExecArray): SafetyFinding {
  return {
    stage,
    rule: rule.id,
    category: rule.category,
    severity: rule.severity,
    path,
    start: match.index + (match[0].startsWith('\n') ? 1 : 0),
    end: match.index + match[0].length,
    reclassifiable: true,
  };
}

function exec(pattern: RegExp, text: string, onMatch: (match: RegExpExecArray) => void): void {
  pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    if (match[0].length === 0) pattern.lastIndex++;
    else onMatch(match);
  }
}

/**
 * Runs phrase rules over one normalized text. `lower` (the lower-cased text) serves the keyword
 * pre-check of rules that run on their own.
 */
export function runPhraseRules(
  rules: readonly PhraseRule[],
  stage: SafetyStage,
  path: string,
  normalized: string,
  lower: string = normalized.toLowerCase(),
): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  const compiled = compile(rules);
  if (compiled.combined) {
    exec(compiled.combined, normalized, (match) => {
      const index = compiled.groups.findIndex((group) => match[group] !== undefined);
      if (index >= 0) findings.push(toFinding(compiled.combinedRules[index], stage, path, match));
    });
  }
  for (const rule of compiled.separate) {
    if (!rule.keywords.some((keyword) => lower.includes(keyword))) continue;
    exec(rule.pattern, normalized, (match) => findings.push(toFinding(rule, stage, path, match)));
  }
  return findings;
}
