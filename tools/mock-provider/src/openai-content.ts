/**
 * Format A / D answers beyond plain text: `n` choices, function tool calls and structured output
 * (`response_format`), whole and as stream deltas, deterministic like the rest of the mock.
 */
import { complete, countTokens, isRecord, splitChunks } from './content';
import { sample } from './gemini-request';

export const MAX_CHOICES = 128;
/** Streamed tool-call arguments are sent in slices of this many characters. */
export const ARGUMENT_SLICE = 12;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIChoice {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
}

export interface OpenAIAnswer {
  choices: OpenAIChoice[];
  promptTokens: number;
  completionTokens: number;
}

interface FunctionTool {
  name: string;
  parameters: unknown;
}

function functionTools(body: Record<string, unknown>): FunctionTool[] {
  const tools = Array.isArray(body['tools']) ? body['tools'] : [];
  return tools.flatMap((tool) =>
    isRecord(tool) && tool['type'] === 'function' && isRecord(tool['function']) && typeof tool['function']['name'] === 'string'
      ? [{ name: tool['function']['name'], parameters: tool['function']['parameters'] }]
      : [],
  );
}

/**
 * The functions the answer calls: `tool_choice` `{type: 'function', function: {name}}` that one,
 * `required` the first tool, `none` none, `auto` (the default) every tool the last user message
 * names, in order of mention (parallel calls). Only on a user turn (a `tool` result is answered).
 */
function calledTools(body: Record<string, unknown>, lastRole: unknown, lastUser: string): FunctionTool[] {
  const tools = functionTools(body);
  const choice = body['tool_choice'];
  if (isRecord(choice) && isRecord(choice['function'])) return tools.filter((tool) => tool.name === (choice['function'] as Record<string, unknown>)['name']);
  if (choice === 'required') return tools.slice(0, 1);
  if (choice === 'none' || lastRole !== 'user') return [];
  return tools.filter((tool) => lastUser.includes(tool.name)).sort((a, b) => lastUser.indexOf(a.name) - lastUser.indexOf(b.name));
}

/** Structured output: a sample of `response_format.json_schema.schema`, or `{"reply": ...}` for `json_object`. */
function jsonText(body: Record<string, unknown>, reply: string): string | undefined {
  const format = body['response_format'];
  if (!isRecord(format)) return undefined;
  if (format['type'] === 'json_schema' && isRecord(format['json_schema'])) return JSON.stringify(sample(format['json_schema']['schema'], 'reply'));
  if (format['type'] === 'json_object') return JSON.stringify({ reply });
  return undefined;
}

/** The answer to a chat-completions body: `lastUser` is the last user text, `lastRole` the last message's role. */
export function openaiAnswer(body: Record<string, unknown>, seq: number, lastUser: string, lastRole: unknown, promptChars: number, override?: string): OpenAIAnswer {
  const n = typeof body['n'] === 'number' && Number.isInteger(body['n']) && body['n'] > 0 ? Math.min(body['n'], MAX_CHOICES) : 1;
  const maxTokens = body['max_completion_tokens'] ?? body['max_tokens'];
  const base = complete(lastUser, promptChars, undefined, override);
  const called = calledTools(body, lastRole, lastUser);
  const choices: OpenAIChoice[] = [];
  let completionTokens = 0;
  for (let i = 0; i < n; i++) {
    if (called.length) {
      const toolCalls = called.map((tool, k): ToolCall => ({
        id: `call_mock${seq}_${i}_${k}`,
        type: 'function',
        function: { name: tool.name, arguments: JSON.stringify(sample(tool.parameters, tool.name)) },
      }));
      completionTokens += toolCalls.reduce((sum, call) => sum + countTokens(call.function.name + call.function.arguments), 0);
      choices.push({ content: null, toolCalls, finishReason: 'tool_calls' });
      continue;
    }
    const text = jsonText(body, base.text) ?? (i === 0 ? base.text : `${base.text} (${i + 1})`);
    const result = complete('', 0, maxTokens, text);
    completionTokens += result.completionTokens;
    choices.push({ content: result.text, toolCalls: [], finishReason: result.truncated ? 'length' : 'stop' });
  }
  return { choices, promptTokens: base.promptTokens, completionTokens };
}

/** The `message` of a whole answer's choice. */
export function choiceMessage(choice: OpenAIChoice): Record<string, unknown> {
  return {
    role: 'assistant',
    content: choice.content,
    ...(choice.toolCalls.length ? { tool_calls: choice.toolCalls } : {}),
    refusal: null,
    annotations: [],
  };
}

/**
 * The stream deltas of every choice, as `[index, delta]` in sending order: each choice's role, then
 * the content pieces (or tool-call starts and argument slices) of all choices interleaved.
 */
export function choiceDeltas(choices: OpenAIChoice[]): [number, Record<string, unknown>][] {
  const lists = choices.map((choice) => {
    const deltas: Record<string, unknown>[] = [];
    for (const piece of splitChunks(choice.content ?? '')) deltas.push({ content: piece });
    choice.toolCalls.forEach((call, k) => {
      deltas.push({ tool_calls: [{ index: k, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
      for (let at = 0; at < call.function.arguments.length; at += ARGUMENT_SLICE) {
        deltas.push({ tool_calls: [{ index: k, function: { arguments: call.function.arguments.slice(at, at + ARGUMENT_SLICE) } }] });
      }
    });
    return deltas;
  });
  const out: [number, Record<string, unknown>][] = choices.map((choice, i) => [i, { role: 'assistant', content: choice.toolCalls.length ? null : '', refusal: null }]);
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let step = 0; step < longest; step++) lists.forEach((list, i) => step < list.length && out.push([i, list[step]]));
  return out;
}
