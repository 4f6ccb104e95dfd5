/**
 * Small helpers shared by the mock provider's specs (plain fetch over real sockets).
 */

export interface SseEvent {
  event?: string;
  data: string;
}

/** Parses a complete SSE body (LF or CRLF line endings). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event.event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { headers });
  return { status: res.status, json: await res.json() };
}

/** Reads a streaming body, noting when each piece arrived; rejects if the connection breaks. */
export async function readTimed(res: Response): Promise<{ text: string; arrivals: { at: number; text: string }[] }> {
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  const arrivals: { at: number; text: string }[] = [];
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const piece = decoder.decode(value, { stream: true });
    arrivals.push({ at: Date.now(), text: piece });
    text += piece;
  }
  return { text, arrivals };
}

export const OPENAI_HEADERS = { authorization: 'Bearer sk-test' };
export const ANTHROPIC_HEADERS = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
