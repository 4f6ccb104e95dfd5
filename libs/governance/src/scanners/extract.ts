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
 * - tool parameter schemas (format A `tools[i].function.parameters`, legacy `functions[i].parameters`,
 *   format B `tools[i].input_schema`): the `description`, `title` and `$comment` strings and the
 *   `enum`, `const`, `default` and `examples` values of every (sub)schema, each under its own path
 *   (`tools[0].function.parameters.properties.city.description`; a key that is not a plain name,
 *   such as an e-mail address, as `[*N]`, see `isPlainKey`), role `tool_definition`; see
 *   `schemaTexts` for the bounds;
 * - end-user identifiers: format A `user` and `safety_identifier`, format B `metadata.user_id`,
 *   role `metadata`;
 * - embeddings `input` and a legacy `prompt` (string or array of strings) with its FIM `suffix`,
 *   role `input`;
 * - Responses-style `input` items and Mistral conversation `inputs` (the D catch-all forwards both):
 *   a string is role `input`; a message item's `content` (string or parts) has the item's role
 *   (`user` without one), a tool result's `output` (Responses) or `result` (Mistral) role `tool`, a
 *   tool call's `arguments` role `assistant`;
 * - `instructions` (Responses, Mistral conversations) and a format-A `response_format.json_schema`
 *   (its `description` and its schema's texts as for tool parameters), role `system`;
 * - format-A predicted output `prediction.content` (string or text parts), role `prediction`.
 * These are the texts stage 2 counts as input (`cost/tokens.ts`), so what is priced is scanned.
 * Every text has a path of its own: stage 4.7 finds a finding's text by its path.
 * Not extracted: images, audio, token arrays, tool names, message `name`s and schema property names.
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
   * (embeddings, legacy prompt and FIM suffix), `tool_definition` (tool descriptions), `metadata`
   * (end-user ids) or `prediction` (predicted output).
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
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
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

/**
 * Descriptions and parameter schemas of `tools` (format A `function.description` and
 * `function.parameters`, format B `description` and `input_schema`) or legacy `functions`
 * (`description`, `parameters`).
 */
function toolDefinitions(out: ExtractedText[], field: string, tools: unknown, budget: SchemaBudget): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((tool, index) => {
    if (!isObject(tool)) return;
    const at = `${field}[${index}]`;
    if (isObject(tool.function)) {
      push(out, `${at}.function.description`, tool.function.description, 'tool_definition');
      if (tool.function.parameters !== undefined) schemaTexts(out, `${at}.function.parameters`, tool.function.parameters, budget);
      return;
    }
    push(out, `${at}.description`, tool.description, 'tool_definition');
    if (tool.input_schema !== undefined) schemaTexts(out, `${at}.input_schema`, tool.input_schema, budget);
    if (tool.parameters !== undefined) schemaTexts(out, `${at}.parameters`, tool.parameters, budget);
  });
}

/** Schema keywords whose strings the model reads as text. */
const SCHEMA_TEXT_KEYWORDS = new Set(['description', 'title', '$comment']);
/** Schema keywords whose values (of any JSON type) are sample or allowed data, scanned as JSON text. */
const SCHEMA_VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords whose value maps names to subschemas: their keys are names, never keywords. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Object and array levels below a schema's root that get their own field paths. */
export const MAX_SCHEMA_DEPTH = 32;
/** Schema texts with their own field paths, over all the schemas of a request. */
export const MAX_SCHEMA_TEXTS = 1000;
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;

/**
 * A key that is a field name, not data (at most 64 letters, digits, `_`, `$` or `-`, not starting
 * with a digit or `-`, at most four digits): it stands in a path as `.key`. Any other key (an
 * e-mail address, an IBAN, a name with a space) stands as `[*N]`, N its position in its object, so
 * a finding's path (a refusal's `param`) never repeats it and no two texts share a path.
 */
export function isPlainKey(key: string): boolean {
  if (!PLAIN_KEY.test(key)) return false;
  let digits = 0;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code >= 48 && code <= 57 && ++digits > 4) return false;
  }
  return true;
}

interface SchemaBudget {
  texts: number;
}

interface SchemaNode {
  value: unknown;
  path: string;
  depth: number;
  /** A `properties`-like map: every value is a subschema, whatever its key. */
  map: boolean;
  /** A text to emit rather than a node to walk. */
  text?: string;
}

/**
 * The texts of a tool's parameter schema (JSON Schema), walked without recursion at any depth:
 * `description`, `title` and `$comment` strings and `enum`, `const`, `default` and `examples`
 * values (as JSON text) of every subschema, found under any key (`properties`, `items`, `anyOf`,
 * `$defs`, vendor extensions...), each under its own path, in document order. Bounded: a schema
 * nested deeper than MAX_SCHEMA_DEPTH, or one that would pass the request's MAX_SCHEMA_TEXTS,
 * is extracted whole instead, as one text of all its keys and strings at the schema's path; so
 * nothing in it goes unscanned, and the paths built stay few and short.
 */
function schemaTexts(out: ExtractedText[], path: string, schema: unknown, budget: SchemaBudget, role = 'tool_definition'): void {
  if (typeof schema === 'string') return push(out, path, schema, role);
  if (typeof schema !== 'object' || schema === null) return;
  const found: ExtractedText[] = [];
  const stack: SchemaNode[] = [{ value: schema, path, depth: 0, map: false }];
  while (stack.length > 0) {
    const node = stack.pop() as SchemaNode;
    if (node.text !== undefined) {
      if (found.length >= budget.texts) return push(out, path, stringsOf(schema), role);
      push(found, node.path, node.text, role);
      continue;
    }
    if (node.depth > MAX_SCHEMA_DEPTH) return push(out, path, stringsOf(schema), role);
    const children: SchemaNode[] = [];
    const depth = node.depth + 1;
    if (Array.isArray(node.value)) {
      node.value.forEach((item, index) => {
        if (typeof item === 'object' && item !== null) children.push({ value: item, path: `${node.path}[${index}]`, depth, map: false });
      });
    } else {
      let position = 0;
      for (const [key, value] of Object.entries(node.value as Json)) {
        const at = isPlainKey(key) ? `${node.path}.${key}` : `${node.path}[*${position}]`;
        position++;
        if (!node.map && SCHEMA_TEXT_KEYWORDS.has(key) && typeof value === 'string') children.push({ value, path: at, depth, map: false, text: value });
        else if (!node.map && SCHEMA_VALUE_KEYWORDS.has(key)) {
          const text = jsonText(value);
          if (text !== undefined) children.push({ value, path: at, depth, map: false, text });
        } else if (typeof value === 'object' && value !== null) {
          children.push({ value, path: at, depth, map: !node.map && SCHEMA_MAPS.has(key) });
        }
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  budget.texts -= found.length;
  for (const text of found) out.push(text);
}

/**
 * Embeddings `input` and a legacy `prompt` (strings), and the item lists of a Responses-style
 * `input` or a Mistral conversation's `inputs`: messages (`role`, `content`), tool results
 * (`output`, `result`) and tool calls (`arguments`).
 */
function inputs(out: ExtractedText[], field: string, value: unknown): void {
  if (typeof value === 'string') return push(out, field, value, 'input');
  if (!Array.isArray(value)) return;
  value.forEach((item, index) => {
    const at = `${field}[${index}]`;
    if (!isObject(item)) return push(out, at, item, 'input');
    if (item.content !== undefined) blocks(out, `${at}.content`, item.content, typeof item.role === 'string' ? item.role : 'user');
    if (item.output !== undefined) blocks(out, `${at}.output`, item.output, 'tool');
    if (item.result !== undefined) push(out, `${at}.result`, jsonText(item.result), 'tool');
    if (item.arguments !== undefined) push(out, `${at}.arguments`, jsonText(item.arguments), 'assistant');
  });
}

/** A format-A `response_format` of type `json_schema`: its description and its schema's texts. */
function responseFormat(out: ExtractedText[], format: unknown, budget: SchemaBudget): void {
  if (!isObject(format) || !isObject(format.json_schema)) return;
  push(out, 'response_format.json_schema.description', format.json_schema.description, 'system');
  if (format.json_schema.schema !== undefined) schemaTexts(out, 'response_format.json_schema.schema', format.json_schema.schema, budget, 'system');
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
  const budget = { texts: MAX_SCHEMA_TEXTS };
  if (body.tools !== undefined) toolDefinitions(out, 'tools', body.tools, budget);
  if (body.functions !== undefined) toolDefinitions(out, 'functions', body.functions, budget);
  push(out, 'user', body.user, 'metadata');
  push(out, 'safety_identifier', body.safety_identifier, 'metadata');
  if (isObject(body.metadata)) push(out, 'metadata.user_id', body.metadata.user_id, 'metadata');
  inputs(out, 'input', body.input);
  inputs(out, 'inputs', body.inputs);
  push(out, 'instructions', body.instructions, 'system');
  if (body.response_format !== undefined) responseFormat(out, body.response_format, budget);
  if (isObject(body.prediction)) blocks(out, 'prediction.content', body.prediction.content, 'prediction');
  inputs(out, 'prompt', body.prompt);
  push(out, 'suffix', body.suffix, 'input');
  return out;
}
