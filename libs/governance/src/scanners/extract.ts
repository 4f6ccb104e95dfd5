/**
 * Every user-provided text of a request body, with the field path it came from, for the PII,
 * content-safety and security scanners. Paths are JSON paths into the body
 * (`messages[2].content[0].text`); findings name them, never the text.
 *
 * User-provided means every text the client sends that reaches the provider, plus the end-user
 * identifiers, which may hold an e-mail address:
 * - format B `system` (string or text blocks), role `system`;
 * - `messages[i].content` of every role as a string or as parts/blocks with `text` (format A `text`
 *   parts, format B `text` blocks and text documents), role of the message; format B `tool_result`
 *   content (string or blocks), role `tool`;
 * - assistant tool calls: format A `messages[i].tool_calls[j].function.arguments` and legacy
 *   `messages[i].function_call.arguments` (JSON strings, as sent), format B `tool_use` blocks'
 *   `input` (as JSON text, path `messages[i].content[j].input`), role of the message;
 * - tool definitions' descriptions: format A `tools[i].function.description`, legacy
 *   `functions[i].description`, format B `tools[i].description`, role `tool_definition`;
 * - end-user identifiers: format A `user` and `safety_identifier`, format B `metadata.user_id`,
 *   role `metadata`;
 * - embeddings `input` and a legacy `prompt` (string or array of strings), role `input`.
 * Not extracted: images, audio, token arrays, tool names and parameter schemas.
 *
 * Stage 4 (PII) scans every role; stages 4.5 and 4.6 scan the untrusted ones
 * (`DEFAULT_SAFETY_ROLES`). A body without tools, tool calls or identifiers costs no more than a
 * property read per message and per field.
 */

export interface ExtractedText {
  path: string;
  text: string;
  /**
   * `system`, `developer`, `user`, `assistant`, `tool`, `function` (the message role), `input`
   * (embeddings, legacy prompt), `tool_definition` (tool descriptions) or `metadata` (end-user ids).
   */
  role: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function push(out: ExtractedText[], path: string, text: unknown, role: string): void {
  if (typeof text === 'string' && text.length > 0) out.push({ path, text, role });
}

/** A tool_use `input` as the JSON text a format-A client would send as `arguments`. */
function jsonText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return stringsOf(value); // nested deeper than the stack allows (JSON.parse is not limited so)
  }
}

/** The keys and string values of a JSON value, one per line, walked without recursion. */
function stringsOf(value: object): string {
  const parts: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') parts.push(item);
    else if (Array.isArray(item)) for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i][1], entries[i][0]);
    }
  }
  return parts.join('\n');
}

function blocks(out: ExtractedText[], path: string, content: unknown, role: string): void {
  if (typeof content === 'string') return push(out, path, content, role);
  if (!Array.isArray(content)) return;
  content.forEach((part, index) => {
    const at = `${path}[${index}]`;
    if (typeof part === 'string') return push(out, at, part, role);
    if (!isObject(part)) return;
    if (part.type === 'tool_result') return blocks(out, `${at}.content`, part.content, 'tool');
    if (part.type === 'tool_use') return push(out, `${at}.input`, jsonText(part.input), role);
    if (part.type === 'document' && isObject(part.source)) {
      if (part.source.type === 'text') push(out, `${at}.source.data`, part.source.data, role);
      if (part.source.type === 'content') blocks(out, `${at}.source.content`, part.source.content, role);
      return;
    }
    push(out, `${at}.text`, part.text, role);
  });
}

/** Format A `tool_calls[j].function.arguments`. */
function toolCalls(out: ExtractedText[], path: string, calls: unknown, role: string): void {
  if (!Array.isArray(calls)) return;
  calls.forEach((call, index) => {
    if (isObject(call) && isObject(call.function)) push(out, `${path}[${index}].function.arguments`, call.function.arguments, role);
  });
}

/** Descriptions of `tools` (format A `function.description`, format B `description`) or legacy `functions`. */
function toolDescriptions(out: ExtractedText[], field: string, tools: unknown): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((tool, index) => {
    if (!isObject(tool)) return;
    if (isObject(tool.function)) push(out, `${field}[${index}].function.description`, tool.function.description, 'tool_definition');
    else push(out, `${field}[${index}].description`, tool.description, 'tool_definition');
  });
}

function inputs(out: ExtractedText[], field: string, value: unknown): void {
  if (typeof value === 'string') return push(out, field, value, 'input');
  if (Array.isArray(value)) value.forEach((item, index) => push(out, `${field}[${index}]`, item, 'input'));
}

export function extractTexts(body: unknown): ExtractedText[] {
  const out: ExtractedText[] = [];
  if (!isObject(body)) return out;
  blocks(out, 'system', body.system, 'system');
  if (Array.isArray(body.messages)) {
    body.messages.forEach((message, index) => {
      if (!isObject(message)) return;
      const role = typeof message.role === 'string' ? message.role : 'user';
      blocks(out, `messages[${index}].content`, message.content, role);
      if (message.tool_calls !== undefined) toolCalls(out, `messages[${index}].tool_calls`, message.tool_calls, role);
      if (isObject(message.function_call)) push(out, `messages[${index}].function_call.arguments`, message.function_call.arguments, role);
    });
  }
  if (body.tools !== undefined) toolDescriptions(out, 'tools', body.tools);
  if (body.functions !== undefined) toolDescriptions(out, 'functions', body.functions);
  push(out, 'user', body.user, 'metadata');
  push(out, 'safety_identifier', body.safety_identifier, 'metadata');
  if (isObject(body.metadata)) push(out, 'metadata.user_id', body.metadata.user_id, 'metadata');
  inputs(out, 'input', body.input);
  inputs(out, 'prompt', body.prompt);
  return out;
}
