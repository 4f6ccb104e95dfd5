/**
 * Every user-provided text of a request body, with the field path it came from, for the PII,
 * content-safety and security scanners. Paths are JSON paths into the body
 * (`messages[2].content[0].text`); findings name them, never the text.
 *
 * Extracted: format B `system` (string or text blocks); `messages[i].content` of every role as a
 * string or as parts/blocks with `text` (format A `text` parts, format B `text` blocks and text
 * documents); format B `tool_result` content (string or blocks), which is given the role `tool`;
 * embeddings `input` and a legacy `prompt` (string or array of strings), role `input`.
 * Not extracted: images, audio, token arrays, tool definitions and assistant tool-call arguments.
 */

export interface ExtractedText {
  path: string;
  text: string;
  /** `system`, `developer`, `user`, `assistant`, `tool`, `function` (the message role), or `input`. */
  role: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function push(out: ExtractedText[], path: string, text: unknown, role: string): void {
  if (typeof text === 'string' && text.length > 0) out.push({ path, text, role });
}

function blocks(out: ExtractedText[], path: string, content: unknown, role: string): void {
  if (typeof content === 'string') return push(out, path, content, role);
  if (!Array.isArray(content)) return;
  content.forEach((part, index) => {
    const at = `${path}[${index}]`;
    if (typeof part === 'string') return push(out, at, part, role);
    if (!isObject(part)) return;
    if (part.type === 'tool_result') return blocks(out, `${at}.content`, part.content, 'tool');
    if (part.type === 'document' && isObject(part.source)) {
      if (part.source.type === 'text') push(out, `${at}.source.data`, part.source.data, role);
      if (part.source.type === 'content') blocks(out, `${at}.source.content`, part.source.content, role);
      return;
    }
    push(out, `${at}.text`, part.text, role);
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
    });
  }
  inputs(out, 'input', body.input);
  inputs(out, 'prompt', body.prompt);
  return out;
}
