/**
 * Format C: Google Gemini generate-content (JSON, SSE with `alt=sse`, JSON array otherwise),
 * embed-content and the models list, behind `?key=` (or `x-goog-api-key`).
 * Like the real API, SSE events end with CRLF CRLF.
 */
import { complete, embedText, isRecord, splitChunks, textOf } from './content';
import { googleError } from './errors';
import { checkKey, EventStream, header, sendJson, type Exchange } from './exchange';
import type { GeminiRequestSummary } from './types';

export const GEMINI_EMBEDDING_DIMENSIONS = 8;

const UNREGISTERED =
  "Method doesn't allow unregistered callers (callers without established identity). " +
  'Please use API Key or other form of API consumer identity to call this API.';

/** Missing key: 403 PERMISSION_DENIED; rejected key: 400 INVALID_ARGUMENT (API_KEY_INVALID), as Google does. */
function authorize(ex: Exchange): boolean {
  const key = ex.query['key'] || header(ex, 'x-goog-api-key');
  const status = checkKey(ex.settings, key);
  if (status === 'ok') return true;
  if (status === 'missing') {
    sendJson(ex, 403, googleError(403, UNREGISTERED));
  } else {
    sendJson(
      ex,
      400,
      googleError(400, 'API key not valid. Please pass a valid API key.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ]),
    );
  }
  return false;
}

function partsText(content: unknown): string {
  return isRecord(content) ? textOf(content['parts']) : '';
}

/** What the gateway sent, in the shape tests assert on. */
export function summarizeGemini(model: string, stream: boolean, body: unknown): GeminiRequestSummary {
  const b = isRecord(body) ? body : {};
  const contents = Array.isArray(b['contents']) ? b['contents'] : [];
  const summary: GeminiRequestSummary = {
    model,
    stream,
    roles: contents.map((c) => (isRecord(c) && typeof c['role'] === 'string' ? c['role'] : 'user')),
  };
  const system = b['systemInstruction'] ?? b['system_instruction'];
  if (system !== undefined) summary.systemInstruction = typeof system === 'string' ? system : partsText(system);
  const config = b['generationConfig'] ?? b['generation_config'];
  if (isRecord(config)) summary.generationConfig = config;
  if (Array.isArray(b['tools'])) summary.tools = b['tools'];
  const toolConfig = b['toolConfig'] ?? b['tool_config'];
  if (toolConfig !== undefined) summary.toolConfig = toolConfig;
  const safety = b['safetySettings'] ?? b['safety_settings'];
  if (Array.isArray(safety)) summary.safetySettings = safety;
  return summary;
}

export async function handleGeminiGenerate(ex: Exchange, model: string, stream: boolean): Promise<void> {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (!Array.isArray(body['contents']) || body['contents'].length === 0) {
    sendJson(ex, 400, googleError(400, '* GenerateContentRequest.contents: contents is not specified\n'));
    return;
  }
  const system = body['systemInstruction'] ?? body['system_instruction'];
  let chars = typeof system === 'string' ? system.length : partsText(system).length;
  let lastUser = '';
  for (const content of body['contents'].filter(isRecord)) {
    const text = partsText(content);
    chars += text.length;
    if (content['role'] === undefined || content['role'] === 'user') lastUser = text;
  }
  const config = body['generationConfig'] ?? body['generation_config'];
  const maxTokens = isRecord(config) ? config['maxOutputTokens'] ?? config['max_output_tokens'] : undefined;
  const result = complete(lastUser, chars, maxTokens, ex.reply);
  const finishReason = result.truncated ? 'MAX_TOKENS' : 'STOP';
  const responseId = `mock-${ex.seq}`;
  const fullUsage = {
    promptTokenCount: result.promptTokens,
    candidatesTokenCount: result.completionTokens,
    totalTokenCount: result.promptTokens + result.completionTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: result.promptTokens }],
  };
  const candidate = (text: string, done: boolean): Record<string, unknown> => ({
    content: { parts: [{ text }], role: 'model' },
    ...(done ? { finishReason } : {}),
    index: 0,
  });

  if (!stream) {
    sendJson(ex, 200, {
      candidates: [candidate(result.text, true)],
      usageMetadata: fullUsage,
      modelVersion: model,
      responseId,
    });
    return;
  }

  const pieces = splitChunks(result.text);
  if (pieces.length === 0) pieces.push('');
  const partialUsage = { promptTokenCount: result.promptTokens, totalTokenCount: result.promptTokens };
  const chunks = pieces.map((piece, i) => {
    const last = i === pieces.length - 1;
    return {
      candidates: [candidate(piece, last)],
      usageMetadata: last ? fullUsage : partialUsage,
      modelVersion: model,
      responseId,
    };
  });
  if (ex.query['alt'] === 'sse') {
    const events = chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`);
    await new EventStream(ex, 'text/event-stream').sendAll(events);
    return;
  }
  // Without alt=sse the API streams one JSON array, element by element.
  const events = chunks.map((c, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}${i === chunks.length - 1 ? ']' : ''}`);
  await new EventStream(ex, 'application/json; charset=UTF-8').sendAll(events);
}

function embeddingDimensions(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? Math.min(value, 8192)
    : GEMINI_EMBEDDING_DIMENSIONS;
}

/** `:embedContent` and `:batchEmbedContents`. */
export function handleGeminiEmbed(ex: Exchange, batch: boolean): void {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  const embed = (req: unknown): { values: number[] } => {
    const r = isRecord(req) ? req : {};
    return { values: embedText(partsText(r['content']), embeddingDimensions(r['outputDimensionality'])) };
  };
  if (batch) {
    if (!Array.isArray(body['requests'])) {
      sendJson(ex, 400, googleError(400, '* BatchEmbedContentsRequest.requests: requests is not specified\n'));
      return;
    }
    sendJson(ex, 200, { embeddings: body['requests'].map(embed) });
    return;
  }
  if (!isRecord(body['content'])) {
    sendJson(ex, 400, googleError(400, '* EmbedContentRequest.content: content is not specified\n'));
    return;
  }
  sendJson(ex, 200, { embedding: embed(body) });
}

export function handleGeminiModels(ex: Exchange): void {
  if (!authorize(ex)) return;
  const gemini = ex.settings.models.filter((m) => m.startsWith('gemini'));
  const models = (gemini.length ? gemini : ex.settings.models).map((id) => ({
    name: `models/${id}`,
    version: '001',
    displayName: id,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 8192,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  }));
  sendJson(ex, 200, { models });
}
