/**
 * Format B content beyond plain text, deterministic and in the Messages API's real shapes:
 * - prompt reading in the API's cache order (tools, then system, then messages), with the
 *   `cache_control` breakpoints;
 * - prompt caching: a prefix ending at a breakpoint is written on a miss and read on a later hit
 *   (`cache_creation_input_tokens` split by lifetime in `cache_creation`, `cache_read_input_tokens`,
 *   `input_tokens` only what follows the last breakpoint);
 * - extended thinking (`thinking` block with a signature, counted in `output_tokens`);
 * - client tool use (`tool_use` block, `stop_reason: tool_use`).
 */
import { createHash } from 'node:crypto';
import { complete, countTokens, isRecord, textOf } from './content';

/** Shortest prefix the mock caches, in tokens (the API's minimum for its Sonnet and Opus models). */
export const MIN_CACHEABLE_TOKENS = 1024;

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
type Ttl = keyof typeof TTL_MS;

interface Breakpoint {
  /** Prompt tokens up to and including the marked block. */
  tokens: number;
  ttl: Ttl;
  /** Identifies the prefix (model and every block up to the marker). */
  key: string;
}

export interface AnthropicPrompt {
  /** Every prompt token: tool definitions, system and messages. */
  tokens: number;
  lastUser: string;
  breakpoints: Breakpoint[];
}

/** Text a block contributes to the prompt (what the mock counts tokens of). */
function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!isRecord(block)) return '';
  switch (block['type']) {
    case 'tool_use':
      return JSON.stringify(block['input'] ?? {});
    case 'tool_result':
      return typeof block['content'] === 'string' ? block['content'] : textOf(block['content']);
    case 'thinking':
      return typeof block['thinking'] === 'string' ? block['thinking'] : '';
    default:
      return typeof block['text'] === 'string' ? block['text'] : '';
  }
}

function ttlOf(block: unknown): Ttl | undefined {
  const marker = isRecord(block) ? block['cache_control'] : undefined;
  if (!isRecord(marker) || marker['type'] !== 'ephemeral') return undefined;
  return marker['ttl'] === '1h' ? '1h' : '5m';
}

/** Reads the prompt in the API's cache order and notes each `cache_control` breakpoint. */
export function readAnthropicPrompt(body: Record<string, unknown>): AnthropicPrompt {
  const model = typeof body['model'] === 'string' ? body['model'] : '';
  let prefix = '';
  const breakpoints: Breakpoint[] = [];
  const add = (text: string, block: unknown) => {
    prefix += text;
    const ttl = ttlOf(block);
    if (ttl) breakpoints.push({ tokens: countTokens(prefix), ttl, key: createHash('sha256').update(`${model}\n${prefix}`).digest('hex') });
  };
  for (const tool of Array.isArray(body['tools']) ? body['tools'] : []) {
    if (isRecord(tool)) add(JSON.stringify({ name: tool['name'], description: tool['description'], input_schema: tool['input_schema'] }), tool);
  }
  const system = body['system'];
  if (typeof system === 'string') add(system, undefined);
  else if (Array.isArray(system)) for (const block of system) add(blockText(block), block);
  let lastUser = '';
  for (const message of (Array.isArray(body['messages']) ? body['messages'] : []).filter(isRecord)) {
    const content = message['content'];
    const blocks = Array.isArray(content) ? content : [content];
    let text = '';
    for (const block of blocks) {
      const piece = blockText(block);
      text += piece;
      add(piece, block);
    }
    if (message['role'] === 'user') lastUser = text;
  }
  return { tokens: countTokens(prefix), lastUser, breakpoints };
}

/** The mock's prompt cache: prefixes by key with their expiry (cleared by the mock's `reset()`). */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  has(key: string, now = Date.now()): boolean {
    const expires = this.entries.get(key);
    return expires !== undefined && expires > now;
  }

  put(key: string, ttl: Ttl, now = Date.now()): void {
    this.entries.set(key, Math.max(this.entries.get(key) ?? 0, now + TTL_MS[ttl]));
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface InputUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/**
 * The input side of `usage`: the longest cached prefix is read (and its lifetime refreshed), the
 * segments after it up to the last breakpoint are written, the rest is `input_tokens`. Breakpoints
 * before MIN_CACHEABLE_TOKENS cache nothing.
 */
export function inputUsage(prompt: AnthropicPrompt, cache: PromptCache): InputUsage {
  const points = prompt.breakpoints.filter((point) => point.tokens >= MIN_CACHEABLE_TOKENS);
  let hit = -1;
  for (let i = points.length - 1; i >= 0 && hit < 0; i--) if (cache.has(points[i].key)) hit = i;
  const read = hit >= 0 ? points[hit].tokens : 0;
  const written = { '5m': 0, '1h': 0 };
  let previous = read;
  points.forEach((point, i) => {
    if (i > hit) {
      written[point.ttl] += point.tokens - previous;
      previous = point.tokens;
    }
    cache.put(point.key, point.ttl);
  });
  const creation = written['5m'] + written['1h'];
  return {
    input_tokens: prompt.tokens - read - creation,
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
  };
}

export type AnswerBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicAnswer {
  blocks: AnswerBlock[];
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  outputTokens: number;
}

/** A client tool's name (server tools, which carry a versioned `type`, are never called by the mock). */
function clientTools(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body['tools']) ? body['tools'] : [];
  return tools
    .filter((tool): tool is Record<string, unknown> => isRecord(tool) && typeof tool['name'] === 'string' && (tool['type'] === undefined || tool['type'] === 'custom'))
    .map((tool) => tool['name'] as string);
}

/**
 * The tool the answer calls: `tool_choice` `{type: 'tool', name}` that tool, `any` the first client
 * tool, `auto` (the default) the first client tool named in the last user message, `none` none.
 */
export function chosenTool(body: Record<string, unknown>, lastUser: string): string | undefined {
  const names = clientTools(body);
  const choice = isRecord(body['tool_choice']) ? body['tool_choice'] : { type: 'auto' };
  if (choice['type'] === 'tool') return names.find((name) => name === choice['name']);
  if (choice['type'] === 'any') return names[0];
  if (choice['type'] === 'none') return undefined;
  return names.find((name) => lastUser.includes(name));
}

/** Whether `thinking` asks for extended thinking. */
export function thinkingEnabled(body: Record<string, unknown>): boolean {
  const thinking = body['thinking'];
  return isRecord(thinking) && (thinking['type'] === 'enabled' || thinking['type'] === 'adaptive');
}

/** Arguments for a tool from its `input_schema`: strings `mock`, numbers 1, booleans true. */
function toolInput(body: Record<string, unknown>, name: string): Record<string, unknown> {
  const tool = (Array.isArray(body['tools']) ? body['tools'] : []).find((t) => isRecord(t) && t['name'] === name) as Record<string, unknown>;
  const schema = isRecord(tool['input_schema']) ? tool['input_schema'] : {};
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const input: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const type = isRecord(property) ? property['type'] : undefined;
    input[key] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'array' ? [] : type === 'object' ? {} : 'mock';
  }
  return input;
}

/** The answer's content blocks, stop reason and output tokens (thinking and tool input included). */
export function buildAnswer(body: Record<string, unknown>, prompt: AnthropicPrompt, seq: number, override?: string): AnthropicAnswer {
  const blocks: AnswerBlock[] = [];
  let outputTokens = 0;
  if (thinkingEnabled(body)) {
    const thinking = `mock thinking about: ${prompt.lastUser.slice(0, 40)}`;
    blocks.push({ type: 'thinking', thinking, signature: createHash('sha256').update(thinking).digest('base64') });
    outputTokens += countTokens(thinking);
  }
  const tool = chosenTool(body, prompt.lastUser);
  if (tool) {
    const input = toolInput(body, tool);
    blocks.push({ type: 'tool_use', id: `toolu_mock${seq}`, name: tool, input });
    return { blocks, stopReason: 'tool_use', outputTokens: outputTokens + countTokens(JSON.stringify(input)) };
  }
  const maxTokens = typeof body['max_tokens'] === 'number' ? Math.max(0, body['max_tokens'] - outputTokens) : undefined;
  const result = complete(prompt.lastUser, 0, maxTokens, override);
  blocks.push({ type: 'text', text: result.text });
  return { blocks, stopReason: result.truncated ? 'max_tokens' : 'end_turn', outputTokens: outputTokens + result.completionTokens };
}

/**
 * `usage.server_tool_use` of an answer: each server tool of the request (a `web_search_*` or
 * `web_fetch_*` `type`) is used once, as the API counts it (`web_search_requests`,
 * `web_fetch_requests`); undefined when the request has none. The mock adds no result blocks.
 */
export function serverToolUse(body: Record<string, unknown>): Record<string, number> | undefined {
  const types = (Array.isArray(body['tools']) ? body['tools'] : []).map((tool) => (isRecord(tool) && typeof tool['type'] === 'string' ? tool['type'] : ''));
  const search = types.some((type) => type.startsWith('web_search_'));
  const fetch = types.some((type) => type.startsWith('web_fetch_'));
  if (!search && !fetch) return undefined;
  return { web_search_requests: search ? 1 : 0, ...(fetch ? { web_fetch_requests: 1 } : {}) };
}
