/**
 * Format C answers: `:generateContent` (one JSON body) and `:streamGenerateContent` (SSE with
 * `alt=sse`, events ended by CRLF CRLF as Google sends them; one JSON array otherwise), in the real
 * wire shapes: candidates (`candidateCount` of them), text, thought summaries, function calls with a
 * thought signature, JSON mode, prompt blocks (`promptFeedback.blockReason`), safety and other stops,
 * and `usageMetadata` with thoughts and implicitly cached prompt tokens.
 */
import { complete, isRecord, splitChunks, textOf } from './content';
import { googleError } from './errors';
import { checkKey, EventStream, header, sendJson, type Exchange } from './exchange';
import {
  cachedPromptTokens,
  checkThoughtSignatures,
  functionCalls,
  GEMINI_BLOCK_DIRECTIVE,
  GEMINI_CALL_IDS_DIRECTIVE,
  GEMINI_FINISH_DIRECTIVE,
  GeminiRequestError,
  includeThoughts,
  jsonAnswer,
  logprobsResult,
  readTurns,
  replySource,
  thoughtTokens,
  turnText,
  type GeminiPart,
} from './gemini-request';

const UNREGISTERED =
  "Method doesn't allow unregistered callers (callers without established identity). " +
  'Please use API Key or other form of API consumer identity to call this API.';

/** Missing key: 403 PERMISSION_DENIED; rejected key: 400 INVALID_ARGUMENT (API_KEY_INVALID), as Google does. */
export function authorize(ex: Exchange): boolean {
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

export function partsText(content: unknown): string {
  return isRecord(content) ? textOf(content['parts']) : '';
}

const SAFETY_RATINGS = ['HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_DANGEROUS_CONTENT', 'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_SEXUALLY_EXPLICIT'].map(
  (category, i) => ({ category, probability: i === 1 ? 'HIGH' : 'NEGLIGIBLE', ...(i === 1 ? { blocked: true } : {}) }),
);

/** One candidate's planned answer: the parts to stream in order and how it ends. */
interface Plan {
  pieces: GeminiPart[];
  finishReason: string;
  tokens: number;
  /** With `responseLogprobs`: the answer's words, one decoding step each. */
  words: string[];
}

export async function handleGeminiGenerate(ex: Exchange, model: string, stream: boolean): Promise<void> {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (!Array.isArray(body['contents']) || body['contents'].length === 0) {
    sendJson(ex, 400, googleError(400, '* GenerateContentRequest.contents: contents is not specified\n'));
    return;
  }
  let turns;
  try {
    turns = readTurns(body['contents']);
    checkThoughtSignatures(model, turns);
  } catch (error) {
    if (!(error instanceof GeminiRequestError)) throw error;
    sendJson(ex, 400, googleError(400, error.message));
    return;
  }
  const rawSystem = body['systemInstruction'] ?? body['system_instruction'];
  const system = typeof rawSystem === 'string' ? rawSystem : partsText(rawSystem);
  const promptChars = system.length + body['contents'].reduce((n: number, c: unknown) => n + partsText(c).length, 0);
  const rawConfig = body['generationConfig'] ?? body['generation_config'];
  const config = isRecord(rawConfig) ? rawConfig : {};
  const last = turns[turns.length - 1];
  const lastText = turnText(last);
  const result = complete(replySource(last), promptChars, config['maxOutputTokens'] ?? config['max_output_tokens'], ex.reply);
  const usage: Record<string, unknown> = {
    promptTokenCount: result.promptTokens,
    totalTokenCount: result.promptTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: result.promptTokens }],
  };
  const cached = cachedPromptTokens(ex.settings, model, system, turns);
  if (cached) {
    usage['cachedContentTokenCount'] = Math.min(cached, result.promptTokens);
    usage['cacheTokensDetails'] = [{ modality: 'TEXT', tokenCount: usage['cachedContentTokenCount'] }];
  }
  const meta = { modelVersion: model, responseId: `mock-${ex.seq}` };

  const blocked = GEMINI_BLOCK_DIRECTIVE.exec(lastText)?.[1];
  if (blocked) {
    // The prompt itself is refused: no candidates, only the feedback and the prompt's usage.
    const answer = { promptFeedback: { blockReason: blocked, safetyRatings: SAFETY_RATINGS }, usageMetadata: usage, ...meta };
    await send(ex, stream, [answer]);
    return;
  }

  const thoughts = thoughtTokens(model, config);
  const calls = functionCalls(body, last);
  const forcedStop = GEMINI_FINISH_DIRECTIVE.exec(lastText)?.[1];
  const count = typeof config['candidateCount'] === 'number' && config['candidateCount'] > 1 ? Math.min(8, Math.floor(config['candidateCount'])) : 1;
  const plans: Plan[] = [];
  for (let i = 0; i < count; i++) {
    const pieces: GeminiPart[] = [];
    if (thoughts && includeThoughts(config)) pieces.push({ text: `Thinking about: ${lastText.slice(0, 40)}`, thought: true });
    let finishReason = result.truncated ? 'MAX_TOKENS' : 'STOP';
    let text = '';
    if (forcedStop === 'MALFORMED_FUNCTION_CALL') {
      finishReason = forcedStop;
    } else if (calls.length) {
      // Parallel calls are parts of one turn; thinking models sign the first one.
      const ids = GEMINI_CALL_IDS_DIRECTIVE.test(lastText);
      calls.forEach((call, k) =>
        pieces.push({
          functionCall: ids ? { ...call, id: `mock-fc-${ex.seq}-${k}` } : call,
          ...(k === 0 && thoughts ? { thoughtSignature: Buffer.from(`mock-signature-${ex.seq}`).toString('base64') } : {}),
        }),
      );
    } else {
      text = jsonAnswer(config, result.text) ?? (i === 0 ? result.text : `${result.text} (${i + 1})`);
      // A safety or recitation stop cuts the answer: the candidate keeps what was sent before it.
      if (forcedStop) text = text.slice(0, Math.floor(text.length / 2));
      pieces.push(...(stream ? splitChunks(text) : [text]).map((piece) => ({ text: piece })));
      if (forcedStop) finishReason = forcedStop;
    }
    const callChars = calls.reduce((n, call) => n + JSON.stringify(call).length, 0);
    plans.push({ pieces, finishReason, tokens: Math.ceil((text.length + (calls.length && !forcedStop ? callChars : 0)) / 4), words: splitChunks(text) });
  }
  const candidatesTokens = plans.reduce((n, plan) => n + plan.tokens, 0);
  const fullUsage: Record<string, unknown> = {
    ...usage,
    candidatesTokenCount: candidatesTokens,
    totalTokenCount: result.promptTokens + candidatesTokens + thoughts,
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };

  const safety = (reason: string) => (reason === 'SAFETY' ? { safetyRatings: SAFETY_RATINGS } : {});
  if (!stream) {
    const candidates = plans.map((plan, index) => {
      const logprobs = logprobsResult(config, plan.words);
      return {
        ...(plan.pieces.length ? { content: { parts: plan.pieces, role: 'model' } } : {}),
        finishReason: plan.finishReason,
        ...safety(plan.finishReason),
        ...(logprobs ? { logprobsResult: logprobs } : {}),
        index,
      };
    });
    sendJson(ex, 200, { candidates, usageMetadata: fullUsage, ...meta });
    return;
  }
  // Streamed: each chunk carries the next part of every candidate; the last one the finish reasons and full usage.
  const length = Math.max(1, ...plans.map((plan) => plan.pieces.length));
  const chunks = Array.from({ length }, (_, k) => {
    const done = k === length - 1;
    const candidates = plans.map((plan, index) => {
      const piece = plan.pieces[k];
      // The answer's words are the last pieces (after a thought summary): each chunk carries its word's step.
      const step = k - (plan.pieces.length - plan.words.length);
      const logprobs = step >= 0 && step < plan.words.length ? logprobsResult(config, [plan.words[step]], step) : undefined;
      return {
        ...(piece ? { content: { parts: [piece], role: 'model' } } : {}),
        ...(done ? { finishReason: plan.finishReason, ...safety(plan.finishReason) } : {}),
        ...(logprobs ? { logprobsResult: logprobs } : {}),
        index,
      };
    });
    return { candidates, usageMetadata: done ? fullUsage : usage, ...meta };
  });
  await send(ex, stream, chunks);
}

/** One JSON body, SSE events (`alt=sse`) or a streamed JSON array. */
async function send(ex: Exchange, stream: boolean, chunks: unknown[]): Promise<void> {
  if (!stream) {
    sendJson(ex, 200, chunks[0]);
    return;
  }
  if (ex.query['alt'] === 'sse') {
    await new EventStream(ex, 'text/event-stream').sendAll(chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`));
    return;
  }
  // Without alt=sse the API streams one JSON array, element by element.
  const events = chunks.map((c, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}${i === chunks.length - 1 ? ']' : ''}`);
  await new EventStream(ex, 'application/json; charset=UTF-8').sendAll(events);
}
