import { PriceOptions, costOf } from './price-lookup';
import { countInputTokens, isEmbeddingsRequest, maxOutputTokens } from './tokens';

export interface CostEstimate {
  input_tokens: number;
  /** The request's max output tokens (0 for embeddings): the estimate is an upper bound. */
  output_tokens: number;
  /** USD, full precision. */
  estimated_cost: number;
}

/** Stage 2 estimate of a request: counted input tokens plus max output tokens at the model's price. */
export function estimateCost(model: string, body: unknown, options: PriceOptions = {}): CostEstimate {
  const input_tokens = countInputTokens(model, body);
  const output_tokens = isEmbeddingsRequest(body) ? 0 : maxOutputTokens(body);
  return { input_tokens, output_tokens, estimated_cost: costOf(model, { input_tokens, output_tokens }, options) };
}
