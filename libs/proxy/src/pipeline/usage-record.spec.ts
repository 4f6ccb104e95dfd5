import { costOf } from '@svc/governance';
import type { TokenUsage } from '../upstream/usage';
import { costOfExchange, FinishState } from './usage-record';
import { usage } from '../upstream/fixtures/usage.fixtures';

const served = (tokens: TokenUsage): FinishState => ({
  status: 200,
  stream: false,
  agent: 'a',
  result: { status: 200, usage: tokens, upstreamLatencyMs: 1, aborted: false, bytesRelayed: 100 },
});

describe('costOfExchange', () => {
  it('prices A cached input at the cache-read price and reasoning as output', () => {
    // gpt-4o: 2.5 input, 1.25 cached, 10 output per 1M; 1,000 prompt tokens of which 400 cached, 500 completion.
    const cost = costOfExchange('openai', 'gpt-4o', served(usage({ inputTokens: 1000, outputTokens: 500, cachedInputTokens: 400, reasoningTokens: 200 })), {});
    expect(cost).toBeCloseTo((600 * 2.5 + 400 * 1.25 + 500 * 10) / 1e6, 15);
  });

  it('prices B cache reads below, and 5-minute and 1-hour cache writes above, the input price', () => {
    // claude-sonnet-4: 3 input, 0.3 read, 3.75 5-minute write, 6 1-hour write, 15 output per 1M.
    // B's input_tokens 100, cache_read 2,000, cache_creation 1,000 (of which 1 hour: 400), output 300.
    const tokens = usage({ inputTokens: 3100, outputTokens: 300, cachedInputTokens: 2000, cacheCreationInputTokens: 1000, cacheCreation1hInputTokens: 400 });
    const cost = costOfExchange('anthropic', 'claude-sonnet-4-20250514', served(tokens), {});
    expect(cost).toBeCloseTo((100 * 3 + 2000 * 0.3 + 600 * 3.75 + 400 * 6 + 300 * 15) / 1e6, 15);
    expect(cost).toBeGreaterThan(costOf('claude-sonnet-4-20250514', { input_tokens: 1100, cached_input_tokens: 2000, output_tokens: 300 }));
  });

  it('costs nothing when nothing was sent upstream', () => {
    expect(costOfExchange('openai', 'gpt-4o', { status: 403, stream: false, agent: 'a' }, {})).toBe(0);
  });
});
