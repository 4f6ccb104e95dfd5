/**
 * Reading a Gemini generate-content request the way the real API does: the checks whose 400s a
 * translating client can run into (roles, empty parts, function-call / function-response turn order
 * and counts, inline data), and what the deterministic answer is derived from (the last turn, the
 * declared functions and the calling mode, JSON mode, thinking, the implicit prompt cache).
 */
import { createHash } from 'node:crypto';
import { isRecord } from './content';
import type { Settings } from './exchange';

export type GeminiPart = Record<string, unknown>;
export interface GeminiTurn {
  role: string;
  parts: GeminiPart[];
}

/** Thought tokens a thinking model reports (Gemini 2.5 Pro/Flash and 3+ think unless told not to). */
export const GEMINI_THOUGHT_TOKENS = 24;
/** The smallest prompt prefix Gemini's implicit cache serves, in tokens. */
export const GEMINI_IMPLICIT_CACHE_MIN_TOKENS = 1024;
/** Directives in the last user text that make the mock answer as Gemini does for unsafe content. */
export const GEMINI_BLOCK_DIRECTIVE = /\bmock:block=([A-Z_]+)/;
export const GEMINI_FINISH_DIRECTIVE = /\bmock:finish=([A-Z_]+)/;
/** Directive that makes the function calls of the answer carry an `id`, as Gemini's may. */
export const GEMINI_CALL_IDS_DIRECTIVE = /\bmock:call-ids\b/;

/** A request the real API refuses: 400 INVALID_ARGUMENT with this message. */
export class GeminiRequestError extends Error {}

const partText = (p: GeminiPart): string => (typeof p['text'] === 'string' && p['thought'] !== true ? p['text'] : '');
export const turnText = (turn: GeminiTurn | undefined): string => (turn ? turn.parts.map(partText).join('') : '');
const has = (turn: GeminiTurn | undefined, kind: string): boolean => !!turn && turn.parts.some((p) => isRecord(p[kind]));
const count = (turn: GeminiTurn, kind: string): number => turn.parts.filter((p) => isRecord(p[kind])).length;

/** `contents` as turns, refused where the real API refuses them. */
export function readTurns(contents: unknown[]): GeminiTurn[] {
  const turns = contents.map((content, i): GeminiTurn => {
    if (!isRecord(content)) throw new GeminiRequestError(`Invalid value at 'contents[${i}]', must be an object`);
    const role = content['role'] ?? 'user';
    if (role !== 'user' && role !== 'model') throw new GeminiRequestError('Please use a valid role: user, model.');
    const parts = Array.isArray(content['parts']) ? content['parts'].filter(isRecord) : [];
    if (!parts.length) throw new GeminiRequestError(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    parts.forEach((part, j) => {
      const inline = part['inlineData'];
      if (inline !== undefined && (!isRecord(inline) || typeof inline['mimeType'] !== 'string' || typeof inline['data'] !== 'string' || !/^[A-Za-z0-9+/=_-]*$/.test(inline['data']))) {
        throw new GeminiRequestError(`Invalid value at 'contents[${i}].parts[${j}].inline_data' (base64 data and a mimeType are required)`);
      }
    });
    return { role: String(role), parts };
  });
  turns.forEach((turn, i) => {
    const previous = turns[i - 1];
    if (has(turn, 'functionResponse')) {
      if (!previous || previous.role !== 'model' || !has(previous, 'functionCall')) {
        throw new GeminiRequestError('Please ensure that function response turn comes immediately after a function call turn.');
      }
      if (count(turn, 'functionResponse') !== count(previous, 'functionCall')) {
        throw new GeminiRequestError('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
      }
    }
    if (has(turn, 'functionCall') && (!previous || previous.role !== 'user')) {
      throw new GeminiRequestError('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    }
  });
  return turns;
}

/**
 * Gemini 3 and later: every function-call turn of the current step (since the last user turn that is
 * not function responses) must carry a thought signature on its first call. Any string passes here;
 * the real API also checks that it is one it issued (or its documented placeholder).
 */
export function checkThoughtSignatures(model: string, turns: GeminiTurn[]): void {
  const major = /^gemini-(\d+)/.exec(model)?.[1];
  if (major === undefined || Number(major) < 3) return;
  let start = 0;
  turns.forEach((turn, i) => {
    if (turn.role === 'user' && !has(turn, 'functionResponse')) start = i;
  });
  turns.slice(start).forEach((turn, i) => {
    const first = turn.parts.findIndex((p) => isRecord(p['functionCall']));
    if (turn.role !== 'model' || first < 0 || typeof turn.parts[first]['thoughtSignature'] === 'string') return;
    const name = String((turn.parts[first]['functionCall'] as Record<string, unknown>)['name']);
    throw new GeminiRequestError(
      'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, ' +
        `and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${start + i + 1}. ` +
        'Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
    );
  });
}

/** The text the reply echoes: the last turn's text, or its function responses as `name=json`. */
export function replySource(last: GeminiTurn | undefined): string {
  if (!last) return '';
  const responses = last.parts.flatMap((p) => {
    const r = p['functionResponse'];
    return isRecord(r) ? [`${String(r['name'])}=${JSON.stringify(r['response'] ?? null)}`] : [];
  });
  return responses.length ? responses.join(' ') : turnText(last);
}

interface Declaration {
  name: string;
  schema: unknown;
}

/**
 * The functions the model calls: on a user turn (not a function-response turn) with tools declared
 * and mode AUTO or ANY, every allowed function whose name the text mentions, in order of mention;
 * mode ANY with none mentioned calls the first allowed one. Arguments follow the declared schema.
 */
export function functionCalls(body: Record<string, unknown>, last: GeminiTurn | undefined): { name: string; args: Record<string, unknown> }[] {
  if (!last || last.role !== 'user' || has(last, 'functionResponse')) return [];
  const declarations: Declaration[] = (Array.isArray(body['tools']) ? body['tools'] : []).flatMap((tool) => {
    const list = isRecord(tool) && Array.isArray(tool['functionDeclarations']) ? tool['functionDeclarations'] : [];
    return list.filter(isRecord).map((d) => ({ name: String(d['name']), schema: d['parametersJsonSchema'] ?? d['parameters'] }));
  });
  if (!declarations.length) return [];
  const config = isRecord(body['toolConfig']) && isRecord(body['toolConfig']['functionCallingConfig']) ? body['toolConfig']['functionCallingConfig'] : {};
  const mode = typeof config['mode'] === 'string' ? config['mode'] : 'AUTO';
  if (mode === 'NONE') return [];
  const allowedNames = Array.isArray(config['allowedFunctionNames']) ? config['allowedFunctionNames'] : undefined;
  const allowed = declarations.filter((d) => !allowedNames || allowedNames.includes(d.name));
  const text = turnText(last);
  let called = allowed.filter((d) => text.includes(d.name)).sort((a, b) => text.indexOf(a.name) - text.indexOf(b.name));
  if (!called.length && mode === 'ANY' && allowed.length) called = [allowed[0]];
  return called.map((d) => ({ name: d.name, args: asObject(sample(d.schema, d.name)) }));
}

const asObject = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

/** A value of a JSON schema (or Gemini's OpenAPI subset, upper-case types): deterministic. */
export function sample(schema: unknown, name: string): unknown {
  if (!isRecord(schema)) return {};
  if (Array.isArray(schema['enum']) && schema['enum'].length) return schema['enum'][0];
  const type = String(Array.isArray(schema['type']) ? schema['type'][0] : schema['type'] ?? (isRecord(schema['properties']) ? 'object' : '')).toLowerCase();
  switch (type) {
    case 'object': {
      const props = isRecord(schema['properties']) ? schema['properties'] : {};
      return Object.fromEntries(Object.entries(props).map(([key, sub]) => [key, sample(sub, key)]));
    }
    case 'array':
      return [sample(schema['items'], name)];
    case 'string':
      return `mock ${name}`;
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** JSON mode (`responseMimeType: application/json`): the answer as JSON text, else undefined. */
export function jsonAnswer(config: Record<string, unknown>, reply: string): string | undefined {
  if (config['responseMimeType'] !== 'application/json') return undefined;
  const schema = config['responseJsonSchema'] ?? config['responseSchema'];
  return JSON.stringify(schema !== undefined ? sample(schema, 'reply') : { reply });
}

/** Thought tokens of this request: thinking models think unless `thinkingBudget: 0`. */
export function thoughtTokens(model: string, config: Record<string, unknown>): number {
  const thinking = isRecord(config['thinkingConfig']) ? config['thinkingConfig'] : {};
  const budget = thinking['thinkingBudget'];
  if (budget === 0) return 0;
  if (!/^gemini-(2\.5-(pro|flash)(?!-lite)|[3-9])/.test(model)) return 0;
  return typeof budget === 'number' && budget > 0 ? Math.min(budget, GEMINI_THOUGHT_TOKENS) : GEMINI_THOUGHT_TOKENS;
}

export const includeThoughts = (config: Record<string, unknown>): boolean =>
  isRecord(config['thinkingConfig']) && config['thinkingConfig']['includeThoughts'] === true;

/** Hashes of the prefixes (system + first k turns) each server has seen, per model: Gemini's implicit cache. */
const caches = new WeakMap<Settings, Set<string>>();
/** Entries a server's cache keeps before it starts over (the mock also serves benchmarks). */
const MAX_CACHE_ENTRIES = 10_000;

/**
 * Implicit caching: the longest prefix of this prompt (system instruction plus whole turns) that an
 * earlier request of this model sent, when it is at least the cache's minimum, counts as cached.
 * This request's prefixes are remembered for the next ones.
 */
export function cachedPromptTokens(settings: Settings, model: string, system: string, turns: GeminiTurn[]): number {
  let cache = caches.get(settings);
  if (!cache || cache.size > MAX_CACHE_ENTRIES) caches.set(settings, (cache = new Set()));
  let cached = 0;
  let chars = system.length;
  let key = createHash('sha256').update(`${model}\u0000${system}`).digest('hex');
  for (const turn of turns) {
    chars += turnText(turn).length;
    key = createHash('sha256').update(`${key}\u0000${turn.role}:${JSON.stringify(turn.parts)}`).digest('hex');
    const tokens = Math.ceil(chars / 4);
    if (cache.has(key) && tokens >= GEMINI_IMPLICIT_CACHE_MIN_TOKENS) cached = tokens;
    cache.add(key);
  }
  return cached;
}

/** The log probability the mock gives the chosen token at decoding step `step` (then alternatives, each 1 lower). */
const geminiLogprob = (step: number): number => -0.25 * (step + 1);

/**
 * `responseLogprobs: true`: a `logprobsResult` for these tokens (one decoding step each, starting at
 * step `first`), with `logprobs` n top candidates per step (the chosen token, then `alt<i>`).
 * Undefined when not asked for.
 */
export function logprobsResult(config: Record<string, unknown>, tokens: string[], first = 0): Record<string, unknown> | undefined {
  if (config['responseLogprobs'] !== true) return undefined;
  const top = typeof config['logprobs'] === 'number' ? Math.max(0, Math.min(20, Math.floor(config['logprobs']))) : 0;
  const chosen = tokens.map((token, k) => ({ token, tokenId: 1000 + first + k, logProbability: geminiLogprob(first + k) }));
  const result: Record<string, unknown> = { chosenCandidates: chosen, logProbabilitySum: chosen.reduce((n, c) => n + c.logProbability, 0) };
  if (top > 0) {
    result['topCandidates'] = chosen.map((c) => ({
      candidates: [c, ...Array.from({ length: top - 1 }, (_, i) => ({ token: `alt${i + 1}`, tokenId: 9000 + i, logProbability: c.logProbability - (i + 1) }))],
    }));
  }
  return result;
}
