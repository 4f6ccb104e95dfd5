/**
 * Format C: Google Gemini embed-content, the models list and the request summary the record keeps,
 * behind `?key=` (or `x-goog-api-key`). Generate-content is in gemini-generate.ts.
 */
import { embedText, isRecord } from './content';
import { googleError } from './errors';
import { sendJson, type Exchange } from './exchange';
import { authorize, partsText } from './gemini-generate';
import type { GeminiRequestSummary } from './types';

export { handleGeminiGenerate } from './gemini-generate';
export { GEMINI_IMPLICIT_CACHE_MIN_TOKENS, GEMINI_THOUGHT_TOKENS } from './gemini-request';

export const GEMINI_EMBEDDING_DIMENSIONS = 8;

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
