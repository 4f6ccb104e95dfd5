import { invalidRequest } from '@svc/platform';
import {
  GeminiContent,
  GeminiFunctionCall,
  GeminiFunctionDeclaration,
  GeminiGenerateContentRequest,
  GeminiPart,
} from './gemini-types';
import { geminiMajor, translateGenerationConfig } from './gemini-generation';
import { googleExtras } from './gemini-google-extras';
import { isGatewayCallId } from './gemini-response';
import { baseUrlOf, finalizeRequest, requireJsonObject } from './request';
import { isJsonObject, JsonObject, UpstreamInput, PreparedUpstreamRequest } from './types';

/** Gemini's API version path and methods (https://ai.google.dev/api/generate-content). */
export const GEMINI_API_VERSION = 'v1beta';

/**
 * `{root}/v1beta/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` for streams.
 * `models/x` and `tunedModels/x` names are used as they are. The key is added by the auth step.
 */
export function geminiUrl(baseUrl: string, model: string, stream: boolean): URL {
  const name = /^(models|tunedModels)\//.test(model) ? model : `models/${model}`;
  const [collection, ...rest] = name.split('/');
  const id = rest.join('/');
  if (!id || id.includes('/') || id.includes(':')) throw invalidRequest(`Invalid Gemini model name '${model}'`, 'model');
  const url = new URL(
    `${baseUrl.replace(/\/+$/, '')}/${GEMINI_API_VERSION}/${collection}/${encodeURIComponent(id)}:${stream ? 'streamGenerateContent' : 'generateContent'}`,
  );
  if (stream) url.searchParams.set('alt', 'sse');
  return url;
}

/** Format-A body → Gemini generate-content request, then the upstream request with `?key=`. */
export function buildGeminiRequest(input: UpstreamInput): PreparedUpstreamRequest {
  const body = requireJsonObject(input.body);
  const model = input.upstreamModel ?? (typeof body.model === 'string' ? body.model : '');
  if (!model) throw invalidRequest('`model` is required', 'model');
  const stream = body.stream === true;
  return finalizeRequest({
    provider: input.provider,
    url: geminiUrl(baseUrlOf(input), model, stream),
    method: 'POST',
    apiKey: input.apiKey,
    clientHeaders: input.clientHeaders,
    body: { json: toGeminiRequest(body, model) },
    stream,
  });
}

/** Translates a format-A chat-completions body. Fields Gemini has no counterpart for are dropped. */
export function toGeminiRequest(body: JsonObject, model = typeof body.model === 'string' ? body.model : ''): GeminiGenerateContentRequest {
  if (!Array.isArray(body.messages)) throw invalidRequest('`messages` must be an array', 'messages');
  for (const legacy of ['functions', 'function_call'] as const) {
    // Dropping them would answer without the functions; answering in the legacy shape is not offered.
    if (body[legacy] !== undefined && body[legacy] !== null) {
      throw invalidRequest(`\`${legacy}\` (deprecated) is not translated for this provider; send \`tools\` and \`tool_choice\` instead`, legacy, 'unsupported_parameter');
    }
  }
  const google = googleExtras(body);
  const { contents, system } = translateMessages(body.messages);
  if (signsFunctionCalls(model)) signFunctionCalls(contents);
  const request: GeminiGenerateContentRequest = { contents };
  if (system.length) request.systemInstruction = { parts: system };
  if (google.cachedContent) request.cachedContent = google.cachedContent;
  const generationConfig = translateGenerationConfig(body, model, google);
  if (Object.keys(generationConfig).length) request.generationConfig = generationConfig;
  const { declarations, toolConfig } = translateTools(body.tools, body.tool_choice);
  if (declarations.length) request.tools = [{ functionDeclarations: declarations }];
  if (toolConfig) request.toolConfig = toolConfig;
  return request;
}

/**
 * Gemini's documented placeholder for a function call it did not sign itself (a history from
 * another model, or a client that dropped `extra_content`): https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini 3 and later refuse (400) a function-call turn of the current step whose calls carry no thought signature. */
function signsFunctionCalls(model: string): boolean {
  return geminiMajor(model) >= 3;
}

/** The first function call of each model turn whose calls carry no signature gets the placeholder. */
function signFunctionCalls(contents: GeminiContent[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const calls = content.parts.filter((p) => p.functionCall);
    if (calls.length && !calls.some((p) => p.thoughtSignature)) calls[0].thoughtSignature = SKIP_THOUGHT_SIGNATURE;
  }
}

function translateMessages(messages: unknown[]): { contents: GeminiContent[]; system: GeminiPart[] } {
  const contents: GeminiContent[] = [];
  const system: GeminiPart[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: GeminiPart[]): void => {
    if (!parts.length) return;
    const last = contents[contents.length - 1];
    // Gemini wants turns to alternate; consecutive messages of one role become one turn.
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message, i) => {
    if (!isJsonObject(message)) throw invalidRequest(`messages[${i}] must be an object`, 'messages');
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...contentParts(message.content, i).filter((p) => p.text !== undefined));
        break;
      case 'user':
        push('user', contentParts(message.content, i));
        break;
      case 'assistant':
        push('model', [...contentParts(message.content, i), ...functionCallParts(message.tool_calls, toolNames)]);
        break;
      case 'tool':
      case 'function': {
        const callId = typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined;
        const name = (callId && toolNames.get(callId)) ?? (typeof message.name === 'string' ? message.name : undefined);
        if (!name) throw invalidRequest(`messages[${i}].tool_call_id does not match an earlier tool call`, 'messages');
        const response: NonNullable<GeminiPart['functionResponse']> = { name, response: functionResponse(message.content) };
        // Gemini matches a response to its call by the call's `id` (FunctionResponse.id) when it gave one.
        if (callId && toolNames.has(callId) && !isGatewayCallId(callId)) response.id = callId;
        push('user', [{ functionResponse: response }]);
        break;
      }
      default:
        throw invalidRequest(`messages[${i}].role '${String(message.role)}' is not supported`, 'messages');
    }
  });
  return { contents, system };
}

function contentParts(content: unknown, i: number): GeminiPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) throw invalidRequest(`messages[${i}].content must be a string or an array`, 'messages');
  // A part that cannot be translated is refused, not dropped: a request whose parts all vanished
  // reached the provider without contents, and its answer named nothing the client sent.
  const malformed = (j: number, what: string) => invalidRequest(`messages[${i}].content[${j}] ${what}`, 'messages');
  return content.flatMap((part, j): GeminiPart[] => {
    if (!isJsonObject(part)) throw malformed(j, 'must be an object with a `type`');
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw malformed(j, 'of type text needs a string `text`');
        return part.text !== '' ? [{ text: part.text }] : [];
      case 'image_url': {
        const ref = isJsonObject(part.image_url) ? part.image_url.url : part.image_url;
        if (typeof ref !== 'string') throw malformed(j, 'of type image_url needs `image_url.url` (a URL or a data: URL)');
        return [mediaPart(ref, 'image/jpeg')];
      }
      case 'input_audio': {
        const audio = isJsonObject(part.input_audio) ? part.input_audio : {};
        if (typeof audio.data !== 'string') throw malformed(j, 'of type input_audio needs `input_audio.data` (base64)');
        return [{ inlineData: { mimeType: `audio/${typeof audio.format === 'string' ? audio.format : 'wav'}`, data: audio.data } }];
      }
      case 'file': {
        const file = isJsonObject(part.file) ? part.file : {};
        if (typeof file.file_data !== 'string') throw malformed(j, 'of type file needs `file.file_data`');
        return [mediaPart(file.file_data, 'application/pdf')];
      }
      default:
        throw invalidRequest(`messages[${i}].content part type '${String(part.type)}' is not supported by Gemini`, 'messages');
    }
  });
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  pdf: 'application/pdf',
};

/**
 * `data:` URLs become inline data (base64; a percent-encoded payload is encoded, a missing type is
 * `text/plain` as RFC 2397 says); other URLs file references with a MIME type guessed from the extension.
 */
function mediaPart(ref: string, fallbackMime: string): GeminiPart {
  const data = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(ref);
  if (data) {
    const base64 = /;base64$/i.test(data[2]);
    let payload = data[3];
    if (!base64) {
      try {
        payload = Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
      } catch {
        throw invalidRequest('A data: URL has a malformed percent-encoded payload', 'messages');
      }
    }
    return { inlineData: { mimeType: data[1] || 'text/plain', data: payload } };
  }
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(ref)?.[1]?.toLowerCase();
  return { fileData: { mimeType: (extension && MIME_BY_EXTENSION[extension]) || fallbackMime, fileUri: ref } };
}

function functionCallParts(toolCalls: unknown, toolNames: Map<string, string>): GeminiPart[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.flatMap((call): GeminiPart[] => {
    if (!isJsonObject(call) || !isJsonObject(call.function) || typeof call.function.name !== 'string') return [];
    const name = call.function.name;
    if (typeof call.id === 'string') toolNames.set(call.id, name);
    const functionCall: GeminiFunctionCall = { name, args: parseArguments(call.function.arguments) };
    // The call is replayed with the id Gemini gave it; an id the gateway made up was never Gemini's.
    if (typeof call.id === 'string' && !isGatewayCallId(call.id)) functionCall.id = call.id;
    const part: GeminiPart = { functionCall };
    // Gemini's own OpenAI-compatible convention for round-tripping thought signatures.
    const google = isJsonObject(call.extra_content) && isJsonObject(call.extra_content.google) ? call.extra_content.google : {};
    if (typeof google.thought_signature === 'string') part.thoughtSignature = google.thought_signature;
    return [part];
  });
}

/** Tool-call arguments are a JSON string; a non-object value is wrapped so nothing is lost. */
function parseArguments(raw: unknown): Record<string, unknown> {
  if (isJsonObject(raw)) return raw;
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isJsonObject(parsed) ? parsed : { arguments: parsed };
  } catch {
    return { arguments: raw };
  }
}

/** A tool result: a JSON object is passed as the response; anything else as `{content: ...}`. */
function functionResponse(content: unknown): Record<string, unknown> {
  const text = Array.isArray(content)
    ? content.map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : '')).join('')
    : content;
  if (typeof text === 'string') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isJsonObject(parsed)) return parsed;
    } catch {
      // plain text result
    }
  }
  return { content: text ?? null };
}

/**
 * `tools` (function tools only: a custom or built-in tool has no Gemini function counterpart and is
 * refused rather than silently dropped) and `tool_choice` → function declarations and
 * `toolConfig.functionCallingConfig`. `allowed_tools` narrows the declarations to the tools it names.
 */
function translateTools(tools: unknown, choice: unknown): { declarations: GeminiFunctionDeclaration[]; toolConfig?: GeminiGenerateContentRequest['toolConfig'] } {
  let declarations = (Array.isArray(tools) ? tools : []).map((tool, i): GeminiFunctionDeclaration => {
    if (!isJsonObject(tool) || tool.type !== 'function' || !isJsonObject(tool.function) || typeof tool.function.name !== 'string') {
      const type = isJsonObject(tool) ? String(tool.type) : typeof tool;
      throw invalidRequest(`tools[${i}] of type '${type}' is not supported by this provider; only function tools with a \`function.name\` are`, 'tools');
    }
    const fn = tool.function;
    const declaration: GeminiFunctionDeclaration = { name: String(fn.name) };
    if (typeof fn.description === 'string') declaration.description = fn.description;
    // JSON Schema as OpenAI clients write it (additionalProperties, $defs...) needs the JSON-schema field.
    if (isJsonObject(fn.parameters)) declaration.parametersJsonSchema = fn.parameters;
    return declaration;
  });
  let toolConfig: GeminiGenerateContentRequest['toolConfig'];
  if (choice === 'auto') toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
  else if (choice === 'none') toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (choice === 'required') toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (isJsonObject(choice) && choice.type === 'allowed_tools' && isJsonObject(choice.allowed_tools)) {
    const allowed = Array.isArray(choice.allowed_tools.tools) ? choice.allowed_tools.tools : [];
    const names = new Set(allowed.map((t) => (isJsonObject(t) && isJsonObject(t.function) ? t.function.name : undefined)));
    declarations = declarations.filter((d) => names.has(d.name));
    toolConfig = { functionCallingConfig: { mode: choice.allowed_tools.mode === 'required' ? 'ANY' : 'AUTO' } };
  } else if (isJsonObject(choice) && isJsonObject(choice.function) && typeof choice.function.name === 'string') {
    toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  } else if (choice !== undefined && choice !== null) {
    throw invalidRequest('`tool_choice` must be none, auto, required, a function or allowed_tools for this provider', 'tool_choice');
  }
  return { declarations, toolConfig };
}
