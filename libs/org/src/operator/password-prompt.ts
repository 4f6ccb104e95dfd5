import { StringDecoder } from 'node:string_decoder';

/**
 * Typing a password at a terminal without echo, for `reset-password --password-stdin` when stdin is
 * a TTY: the terminal goes to raw mode (no echo, no line editing, Ctrl-C arrives as a byte), the
 * prompts go to stderr, and the line is edited here (Backspace, Ctrl-U) until Enter.
 */

/** What the prompt needs of stdin: `process.stdin`, a tty.ReadStream when `isTTY`. */
export interface PromptInput extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export type LineResult =
  | { kind: 'line'; line: string }
  /** Ctrl-C. */
  | { kind: 'interrupt' }
  /** Ctrl-D on an empty line, or the end of the input. */
  | { kind: 'eof' }
  | { kind: 'too_long' };

/** Escape sequences (arrow, function and other special keys, Alt+key): dropped, not typed. */
// eslint-disable-next-line no-control-regex -- ESC is what these patterns are about
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/gs;
/** The start of an escape sequence at the end of the input, whose rest has not arrived yet. */
// eslint-disable-next-line no-control-regex -- as above
const ESCAPE_START = /\u001b(?:\[[0-?]*[ -/]*|O)?$/;

/**
 * Raw terminal input to lines. Enter (CR, LF or CRLF) ends a line and what was typed after it waits
 * for the next one (a paste of both entries); Backspace (DEL or BS) removes the last character,
 * Ctrl-U the whole line; other control characters are ignored.
 */
export class HiddenLineEditor {
  private chars: string[] = [];
  private queue = '';
  /** The last line ended with CR: a LF arriving next belongs to it. */
  private afterCr = false;

  constructor(private readonly maxChars: number) {}

  push(text: string): void {
    this.queue += text;
  }

  /** The next line (or Ctrl-C, Ctrl-D), consuming the input up to it; null until one is complete. */
  next(): LineResult | null {
    const held = ESCAPE_START.exec(this.queue)?.[0] ?? '';
    let input = this.queue.slice(0, this.queue.length - held.length).replace(ESCAPE_SEQUENCE, '');
    if (this.afterCr && input.length > 0) {
      if (input.startsWith('\n')) input = input.slice(1);
      this.afterCr = false;
    }
    let index = 0;
    for (const ch of input) {
      index += ch.length;
      if (ch === '\r' || ch === '\n') {
        if (ch === '\r' && input[index] === '\n') index += 1;
        this.afterCr = ch === '\r' && index === input.length;
        this.queue = input.slice(index) + held;
        const line = this.chars.join('');
        this.chars = [];
        return { kind: 'line', line };
      }
      if (ch === '\u0003') return this.end({ kind: 'interrupt' });
      if (ch === '\u0004') {
        if (this.chars.length === 0) return this.end({ kind: 'eof' });
      } else if (ch === '\u007f' || ch === '\b') this.chars.pop();
      else if (ch === '\u0015') this.chars = [];
      else if (ch >= ' ') {
        this.chars.push(ch);
        if (this.chars.length > this.maxChars) return this.end({ kind: 'too_long' });
      }
    }
    this.queue = held;
    return null;
  }

  private end(result: LineResult): LineResult {
    this.chars = [];
    this.queue = '';
    return result;
  }
}

/**
 * Questions at a terminal with echo off: raw mode is set when it opens (before the first prompt
 * shows); each prompt is written to `prompts` (stderr), and a newline after each answer. `close`
 * restores the terminal and releases stdin; call it in a `finally`.
 */
export class HiddenPrompt {
  private readonly editor: HiddenLineEditor;
  private readonly decoder = new StringDecoder('utf8');
  private readonly iterator: AsyncIterator<Buffer | string>;
  private closed = false;

  constructor(
    private readonly stdin: PromptInput,
    private readonly prompts: { write(text: string): unknown },
    maxChars: number,
  ) {
    this.editor = new HiddenLineEditor(maxChars);
    this.iterator = stdin[Symbol.asyncIterator]();
    stdin.setRawMode?.(true);
  }

  async ask(question: string): Promise<LineResult> {
    this.prompts.write(question);
    let result = this.editor.next();
    while (result === null) {
      const chunk = await this.iterator.next();
      if (chunk.done) {
        result = { kind: 'eof' };
        break;
      }
      const value: Buffer | string = chunk.value;
      this.editor.push(typeof value === 'string' ? value : this.decoder.write(value));
      result = this.editor.next();
    }
    this.prompts.write('\n');
    return result;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.setRawMode?.(false);
    await this.iterator.return?.();
  }
}
