import { ANTHROPIC_STREAM_OVERLOADED } from './fixtures/sse.fixtures';
import { usage } from './fixtures/usage.fixtures';
import { createSseUsageTracker } from './usage';

const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function track(...events: string[]) {
  const tracker = createSseUsageTracker('anthropic');
  const bytes = new TextEncoder().encode(events.join(''));
  for (let at = 0; at < bytes.length; at += 5) tracker.feed(bytes.subarray(at, at + 5));
  tracker.end();
  return tracker;
}

const start = (counters: Record<string, unknown>) => event('message_start', { message: { id: 'msg_1', usage: counters } });
const delta = (counters: Record<string, unknown>) => event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: counters });
const stop = event('message_stop', {});

/** Format-B stream usage: message_delta counters are running totals of the whole message. */
describe('SseUsageTracker, format B counters', () => {
  it('takes the last of several message_delta events, keeping what an earlier one raised (server tools)', () => {
    const tracker = track(
      start({ input_tokens: 100, cache_read_input_tokens: 0, output_tokens: 1 }),
      delta({ input_tokens: 2500, cache_read_input_tokens: 900, output_tokens: 40 }),
      delta({ output_tokens: 75 }),
      stop,
    );
    expect(tracker.usage).toEqual(usage({ inputTokens: 3400, outputTokens: 75, cachedInputTokens: 900 }));
    expect(tracker.completed).toBe(true);
  });

  it('never counts input twice when message_delta repeats it, and never loses it when an upstream sends 0 there', () => {
    const counters = { input_tokens: 25, cache_creation_input_tokens: 500, cache_read_input_tokens: 100 };
    const repeated = track(start({ ...counters, cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 }, output_tokens: 1 }), delta({ ...counters, output_tokens: 15 }), stop);
    const expected = usage({ inputTokens: 625, outputTokens: 15, cachedInputTokens: 100, cacheCreationInputTokens: 500, cacheCreation1hInputTokens: 300 });
    expect(repeated.usage).toEqual(expected);
    const zeroed = track(
      start({ ...counters, cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 }, output_tokens: 1 }),
      delta({ input_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: 0, output_tokens: 15 }),
      stop,
    );
    expect(zeroed.usage).toEqual(expected);
  });

  it('names the type of an in-stream error event', () => {
    const tracker = track(ANTHROPIC_STREAM_OVERLOADED);
    expect(tracker.errored).toBe(true);
    expect(tracker.errorType).toBe('overloaded_error');
    expect(track(start({ input_tokens: 1 }), stop).errorType).toBeUndefined();
  });
});
