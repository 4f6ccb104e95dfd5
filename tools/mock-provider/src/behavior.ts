/**
 * Behaviour rules: validation of rules coming over HTTP, matching a request to the first fitting rule
 * and the counters of the counted effects (failures, dropped connections, stream aborts).
 */
import type {
  AbortBehavior,
  BehaviorMatch,
  CountedBehavior,
  FailureBehavior,
  MockBehavior,
  RouteKind,
  StreamErrorBehavior,
  WireFormat,
} from './types';

const RULE_KEYS = new Set(['match', 'latencyMs', 'fail', 'drop', 'abort', 'streamError', 'chunkDelayMs', 'reply', 'headers']);
const MATCH_KEYS = new Set(['path', 'pathRegex', 'format', 'route', 'method']);
const FAIL_KEYS = new Set(['status', 'times', 'body', 'message', 'headers', 'truncate']);
const FORMATS = new Set<WireFormat>(['openai', 'anthropic', 'gemini', 'ollama', 'echo']);

interface Rule {
  behavior: MockBehavior;
  regex?: RegExp;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(message: string): never {
  throw new Error(`invalid behavior: ${message}`);
}

function checkKeys(value: Record<string, unknown>, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) fail(`unknown field ${where}${key}`);
  }
}

function checkNumber(value: unknown, where: string, min: number, integer = false): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (integer && !Number.isInteger(value))) {
    fail(`${where} must be ${integer ? 'an integer' : 'a number'} >= ${min}`);
  }
  return value;
}

function checkTimes(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(Number.isInteger(value) || value === Infinity)) {
    fail(`${where} must be an integer`);
  }
  return value;
}

function checkMatch(value: unknown): BehaviorMatch | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail('match must be an object');
  checkKeys(value, MATCH_KEYS, 'match.');
  const match: BehaviorMatch = {};
  if (value['path'] !== undefined) {
    if (typeof value['path'] !== 'string' && !(value['path'] instanceof RegExp)) fail('match.path must be a string');
    match.path = value['path'] as string | RegExp;
  }
  for (const key of ['pathRegex', 'route', 'method'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') fail(`match.${key} must be a string`);
  }
  if (typeof value['pathRegex'] === 'string') {
    try {
      new RegExp(value['pathRegex']);
    } catch {
      fail('match.pathRegex is not a valid regular expression');
    }
    match.pathRegex = value['pathRegex'];
  }
  if (value['format'] !== undefined) {
    if (!FORMATS.has(value['format'] as WireFormat)) fail(`match.format must be one of ${[...FORMATS].join(', ')}`);
    match.format = value['format'] as WireFormat;
  }
  if (typeof value['route'] === 'string') match.route = value['route'] as RouteKind;
  if (typeof value['method'] === 'string') match.method = value['method'].toUpperCase();
  return match;
}

function checkFail(value: unknown): FailureBehavior | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail('fail must be an object');
  checkKeys(value, FAIL_KEYS, 'fail.');
  const status = checkNumber(value['status'], 'fail.status', 100, true);
  if (status === undefined || status > 599) fail('fail.status must be an HTTP status (100-599)');
  const out: FailureBehavior = { status, times: checkTimes(value['times'], 'fail.times') ?? 1 };
  if (value['body'] !== undefined) out.body = value['body'];
  if (value['message'] !== undefined) {
    if (typeof value['message'] !== 'string') fail('fail.message must be a string');
    out.message = value['message'];
  }
  const headers = checkHeaders(value['headers'], 'fail.headers');
  if (headers) out.headers = headers;
  if (value['truncate'] !== undefined) {
    if (typeof value['truncate'] !== 'boolean') fail('fail.truncate must be a boolean');
    out.truncate = value['truncate'];
  }
  return out;
}

function checkHeaders(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || Object.values(value).some((h) => typeof h !== 'string')) fail(`${where} must map names to strings`);
  return { ...(value as Record<string, string>) };
}

function checkCounted(value: unknown, where: string): CountedBehavior | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail(`${where} must be an object`);
  checkKeys(value, new Set(['times']), `${where}.`);
  return { times: checkTimes(value['times'], `${where}.times`) ?? 1 };
}

function checkAbort(value: unknown): AbortBehavior | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail('abort must be an object');
  checkKeys(value, new Set(['afterChunks', 'times']), 'abort.');
  const afterChunks = checkNumber(value['afterChunks'], 'abort.afterChunks', 0, true);
  if (afterChunks === undefined) fail('abort.afterChunks is required');
  return { afterChunks, times: checkTimes(value['times'], 'abort.times') ?? 1 };
}

function checkStreamError(value: unknown): StreamErrorBehavior | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) return fail('streamError must be an object');
  checkKeys(value, new Set(['afterChunks', 'times', 'type', 'message']), 'streamError.');
  const out: StreamErrorBehavior = { afterChunks: checkNumber(value['afterChunks'], 'streamError.afterChunks', 0, true) ?? 1, times: checkTimes(value['times'], 'streamError.times') ?? 1 };
  for (const key of ['type', 'message'] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== 'string') fail(`streamError.${key} must be a string`);
    out[key] = value[key];
  }
  return out;
}

/** Validates one rule (from code or JSON) and returns an independent copy with counters filled in. */
export function normalizeBehavior(value: unknown): MockBehavior {
  if (!isObject(value)) fail('a rule must be an object');
  checkKeys(value, RULE_KEYS, '');
  const rule: MockBehavior = {};
  const match = checkMatch(value['match']);
  if (match) rule.match = match;
  const latencyMs = checkNumber(value['latencyMs'], 'latencyMs', 0);
  if (latencyMs !== undefined) rule.latencyMs = latencyMs;
  const chunkDelayMs = checkNumber(value['chunkDelayMs'], 'chunkDelayMs', 0);
  if (chunkDelayMs !== undefined) rule.chunkDelayMs = chunkDelayMs;
  const failure = checkFail(value['fail']);
  if (failure) rule.fail = failure;
  const drop = checkCounted(value['drop'], 'drop');
  if (drop) rule.drop = drop;
  const abort = checkAbort(value['abort']);
  if (abort) rule.abort = abort;
  const streamError = checkStreamError(value['streamError']);
  if (streamError) rule.streamError = streamError;
  if (value['reply'] !== undefined) {
    if (typeof value['reply'] !== 'string') fail('reply must be a string');
    rule.reply = value['reply'];
  }
  const headers = checkHeaders(value['headers'], 'headers');
  if (headers) rule.headers = headers;
  return rule;
}

/** Consumes one use of a counted effect; false when it is exhausted. */
function take(effect: { times?: number } | undefined): boolean {
  if (!effect) return false;
  const times = effect.times ?? 1;
  if (times === 0) return false;
  if (times > 0) effect.times = times - 1;
  return true;
}

export class BehaviorState {
  private rules: Rule[] = [];

  /** Replaces the rules; throws (before changing anything) when one is invalid. */
  set(input: MockBehavior | MockBehavior[] | null | undefined): void {
    const list = input == null ? [] : Array.isArray(input) ? input : [input];
    const rules = list.map((raw): Rule => {
      const behavior = normalizeBehavior(raw);
      const pattern = behavior.match?.pathRegex;
      return pattern === undefined ? { behavior } : { behavior, regex: new RegExp(pattern) };
    });
    this.rules = rules;
  }

  /** JSON-safe copies of the rules with their remaining counters. */
  list(): MockBehavior[] {
    return this.rules.map(({ behavior }) => {
      const copy: MockBehavior = JSON.parse(JSON.stringify(behavior, (_k, v) => (v === Infinity ? -1 : v)));
      const path = behavior.match?.path;
      if (path instanceof RegExp && copy.match) {
        delete copy.match.path;
        copy.match.pathRegex = path.source;
      }
      return copy;
    });
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** The first rule fitting the request, if any. */
  find(method: string, path: string, route: RouteKind, format: WireFormat): MockBehavior | undefined {
    for (const rule of this.rules) {
      const m = rule.behavior.match;
      if (m) {
        if (m.method !== undefined && m.method !== method.toUpperCase()) continue;
        if (m.route !== undefined && m.route !== route) continue;
        if (m.format !== undefined && m.format !== format) continue;
        if (typeof m.path === 'string' && !path.includes(m.path)) continue;
        if (m.path instanceof RegExp && !m.path.test(path)) continue;
        if (rule.regex && !rule.regex.test(path)) continue;
      }
      return rule.behavior;
    }
    return undefined;
  }

  takeFailure(rule: MockBehavior): FailureBehavior | undefined {
    return take(rule.fail) ? rule.fail : undefined;
  }

  takeDrop(rule: MockBehavior): boolean {
    return take(rule.drop);
  }

  /** The in-stream error to end this B stream with, or undefined when none is armed. */
  takeStreamError(rule: MockBehavior): StreamErrorBehavior | undefined {
    return take(rule.streamError) ? rule.streamError : undefined;
  }

  /** Events to write before aborting this stream, or undefined when no abort is armed. */
  takeAbort(rule: MockBehavior): number | undefined {
    return take(rule.abort) ? rule.abort?.afterChunks : undefined;
  }
}
