import { isNameControlCharacter } from '../http/validation';

/**
 * The longest run of characters without a space that a refusal shows, in UTF-16 code units: an id,
 * a model name or a path the request sent. The gateway's own words are never that long.
 */
export const MAX_ECHOED_RUN = 120;

/** Where to cut `text` near `index` without splitting a surrogate pair (an emoji). */
function cutAt(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** A run longer than `max`: its first two thirds and last third around `…`, `max` long at most. */
function shorten(run: string, max: number): string {
  const tail = Math.floor(max / 3);
  return `${run.slice(0, cutAt(run, max - tail - 1))}…${run.slice(cutAt(run, run.length - tail))}`;
}

/**
 * A refusal's message with the text it echoes from the request (a path segment in a 404: `Stored
 * key for provider X not found`, `The model 'X' is not listed`, `No route GET /x`) made safe to show
 * and log. A run without a space longer than `max` keeps its start and end around `…`, so the words
 * around it stay whole; then every character a display name may not hold (`isNameControlCharacter`:
 * C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional embeddings,
 * overrides and isolates) is written as `\uXXXX` (`\u202e`): it can neither forge a line in a log
 * or a terminal nor reorder the text around it ("Trojan Source").
 */
export function safeEchoedText(text: string, max = MAX_ECHOED_RUN): string {
  const shown = text.length <= max ? text : text.split(' ').map((run) => (run.length > max ? shorten(run, max) : run)).join(' ');
  let out = '';
  let start = 0;
  for (let i = 0; i < shown.length; i++) {
    const code = shown.charCodeAt(i);
    if (!isNameControlCharacter(code)) continue;
    out += `${shown.slice(start, i)}\\u${code.toString(16).padStart(4, '0')}`;
    start = i + 1;
  }
  return start === 0 ? shown : out + shown.slice(start);
}
