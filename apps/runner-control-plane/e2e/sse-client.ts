import { createParser } from 'eventsource-parser';
import type { Json } from './runner-helpers';

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: Json;
}

/** A real SSE client: fetch, reading the response body as it arrives, parsed by eventsource-parser. */
export class SseClient {
  readonly events: SseEvent[] = [];
  /** Resolves when the server ends the stream (or the client aborts it). */
  readonly ended: Promise<void>;
  private readonly waiters: { match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    const parser = createParser({
      onEvent: (message) => {
        const event: SseEvent = { event: message.event ?? 'message', id: message.id, data: JSON.parse(message.data) as Json };
        this.events.push(event);
        for (const waiter of [...this.waiters]) {
          if (!waiter.match(event)) continue;
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      },
    });
    const body = response.body;
    if (!body) throw new Error('no response body');
    const reader = body.getReader();
    const decoder = new TextDecoder();
    this.ended = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // Aborted by close().
      }
    })();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const controller = new AbortController();
    const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: controller.signal });
    return new SseClient(response, controller);
  }

  /** The first event (already received or still to come) that matches. */
  waitFor(match: (e: SseEvent) => boolean, timeoutMs = 5_000): Promise<SseEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<SseEvent>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching SSE event within ${timeoutMs} ms; got ${this.names().join(', ')}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      });
    });
  }

  names(): string[] {
    return this.events.map((e) => e.event);
  }

  close(): void {
    this.controller.abort();
  }
}
