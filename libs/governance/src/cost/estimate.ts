import { PriceOptions, TokenUsage, costAtPrice, longContextTier, priceFor } from './price-lookup';
import { answerCount, CacheWrite, countInput, countTexts, isEmbeddingsRequest, isTokenPricedBody, maxOutputTokens, namedMaxOutputTokens } from './tokens';

export interface CostEstimate {
  input_tokens: number;
  /** The request's max output tokens (0 for embeddings), times `answers`: the estimate is an upper bound. */
  output_tokens: number;
  /** Set when the request asks for more than one answer (`n`, `best_of`): each may reach the max output tokens. */
  answers?: number;
  /** USD, full precision. */
  estimated_cost: number;
  /** Set when the input was priced as prompt-cache writes (a `cache_control` marker, a model with write prices). */
  cache_write?: Exclude<CacheWrite, 'none'>;
  /**
   * Set when the counted input is above the model's long-context threshold (this number of input
   * tokens): the whole request is priced at the model's long-context prices.
   */
  long_context?: number;
  /**
   * Set on a D catch-all call without a prompt: `input_tokens` are every string of its body (the PII
   * walk's texts), held against the caps, budgets and HITL threshold. Not charged when the answer
   * has no usage: what the provider bills such a call for is not known to be tokens.
   */
  body_strings?: true;
}

/**
 * Stage 2 estimate of a request: counted input tokens plus max output tokens (for each answer a
 * request asks for: `n`, `best_of`) at the model's price.
 * A body with a `cache_control` marker may write its whole prompt to the provider's cache, billed
 * above the input price: its input is priced at the write rate instead (the 1-hour one if any
 * marker asks for `ttl: "1h"`), when that is higher, so the estimate stays an upper bound.
 * A model with a long-context tier (`ModelPrice.long_context`) whose counted input is above its
 * threshold is priced at the tier, input and output, as the recorded cost will be.
 */
export function estimateCost(model: string, body: unknown, options: PriceOptions = {}): CostEstimate {
  const { tokens: input_tokens, cacheWrite } = countInput(model, body);
  const answers = isEmbeddingsRequest(body) ? 1 : answerCount(body);
  const output_tokens = isEmbeddingsRequest(body) ? 0 : maxOutputTokens(body) * answers;
  const price = priceFor(model, options);
  const estimated_cost = costAtPrice(price, { input_tokens, output_tokens });
  const estimate: CostEstimate = { input_tokens, output_tokens, estimated_cost };
  if (answers > 1) estimate.answers = answers;
  const tier = longContextTier(price, input_tokens);
  if (tier) estimate.long_context = tier.above_input_tokens;
  if (cacheWrite === 'none') return estimate;
  const written: TokenUsage =
    cacheWrite === '1h' ? { cache_write_1h_input_tokens: input_tokens, output_tokens } : { cache_write_input_tokens: input_tokens, output_tokens };
  const writeCost = costAtPrice(price, written);
  if (writeCost <= estimated_cost) return estimate;
  return { ...estimate, estimated_cost: writeCost, cache_write: cacheWrite };
}

/**
 * Stage 2 estimate of a D catch-all call (`ANY /v1/{provider}/{path}`): `estimateCost` when its body
 * is priced in tokens (`isTokenPricedBody`: messages, a prompt, an input). Any other body (an array
 * such as a batch, a rerank's `query` and `documents`, a job, unknown fields) is estimated from
 * `bodyTexts`, every string of it as the PII walk extracted them (`extractBodyTexts`: already bounded
 * and joined past 10,000 texts), counted with the model's tokenizer at its input price, plus the max
 * output the body names (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, times `n` or
 * `best_of`). Without a named max such a call is estimated at 0 output tokens, not 4,096: a rerank,
 * classifier, moderation, OCR or job call generates no text to bill. A GET or a body that is not
 * JSON has no strings: 0.
 */
export function estimatePassthroughCost(model: string, body: unknown, bodyTexts: () => readonly { text: string }[], options: PriceOptions = {}): CostEstimate {
  if (isTokenPricedBody(body)) return estimateCost(model, body, options);
  const input_tokens = countTexts(model, bodyTexts());
  const max = namedMaxOutputTokens(body);
  const answers = max === null ? 1 : answerCount(body);
  const output_tokens = (max ?? 0) * answers;
  if (input_tokens === 0 && output_tokens === 0) return { input_tokens: 0, output_tokens: 0, estimated_cost: 0 };
  const price = priceFor(model, options);
  const estimate: CostEstimate = { input_tokens, output_tokens, estimated_cost: costAtPrice(price, { input_tokens, output_tokens }), body_strings: true };
  if (answers > 1) estimate.answers = answers;
  const tier = longContextTier(price, input_tokens);
  if (tier) estimate.long_context = tier.above_input_tokens;
  return estimate;
}
