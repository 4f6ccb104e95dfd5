import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HiddenLineEditor, HiddenPrompt, LineResult, PromptInput } from './password-prompt';
import { runResetPassword } from './reset-password.command';

/**
 * A terminal as stdin, in process: records raw mode and yields what the test types, chunk by chunk.
 * apps/org-api/e2e/reset-password.e2e-spec.ts runs the command in a real pseudo-terminal.
 */
class FakeTty implements PromptInput {
  readonly isTTY = true;
  raw = false;
  released = false;
  private readonly chunks: (Buffer | string)[] = [];
  private ended = false;
  private wake: (() => void) | null = null;

  setRawMode(mode: boolean): void {
    this.raw = mode;
  }

  type(...chunks: (Buffer | string)[]): void {
    this.chunks.push(...chunks);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer | string> {
    return {
      next: async () => {
        while (this.chunks.length === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
        const chunk = this.chunks.shift();
        return chunk === undefined ? { done: true, value: undefined } : { done: false, value: chunk };
      },
      return: async () => {
        this.released = true;
        return { done: true, value: undefined };
      },
    };
  }
}

/** Stderr that notes whether the terminal was raw when each text was written. */
function screen(tty: FakeTty) {
  const writes: { text: string; raw: boolean }[] = [];
  return { writes, text: () => writes.map((w) => w.text).join(''), write: (text: string) => writes.push({ text, raw: tty.raw }) };
}

function lines(editor: HiddenLineEditor, ...chunks: string[]): (LineResult | null)[] {
  return chunks.map((chunk) => {
    editor.push(chunk);
    return editor.next();
  });
}

describe('HiddenLineEditor', () => {
  it('ends a line at Enter and edits it with Backspace (DEL or BS) and Ctrl-U', () => {
    expect(lines(new HiddenLineEditor(256), 'secret', 'x\u007f\u007fT', '\r')).toEqual([null, null, { kind: 'line', line: 'secreT' }]);
    expect(lines(new HiddenLineEditor(256), 'wrong\u0015right\b\bht\n')).toEqual([{ kind: 'line', line: 'right' }]);
    // Backspace on an empty line does nothing; it removes a whole character, not half of one.
    expect(lines(new HiddenLineEditor(256), '\u007fpäss🔑\u007f\u007fs😀\r')).toEqual([{ kind: 'line', line: 'päss😀' }]);
  });

  it('drops arrow and function keys, even split across chunks, and other control characters', () => {
    expect(lines(new HiddenLineEditor(256), 'ab\u001b[D\u001b[1;5C\u001bOP\tc', '\u001b', '[', 'Ad\u0007\r')).toEqual([null, null, null, { kind: 'line', line: 'abcd' }]);
  });

  it('keeps what follows Enter for the next line (a paste of both entries), CRLF as one Enter', () => {
    const editor = new HiddenLineEditor(256);
    expect(lines(editor, 'first\r\nsecond\r')).toEqual([{ kind: 'line', line: 'first' }]);
    expect(editor.next()).toEqual({ kind: 'line', line: 'second' });
    expect(editor.next()).toBeNull();
    // A CR in one chunk and its LF in the next: one Enter, not an empty line.
    expect(lines(editor, '\n', 'third\r')).toEqual([null, { kind: 'line', line: 'third' }]);
  });

  it('stops at Ctrl-C, at Ctrl-D on an empty line, and past the longest password', () => {
    expect(lines(new HiddenLineEditor(256), 'abc\u0003def\r')).toEqual([{ kind: 'interrupt' }]);
    expect(lines(new HiddenLineEditor(256), 'abc\u0004', '\u0015\u0004')).toEqual([null, { kind: 'eof' }]);
    expect(lines(new HiddenLineEditor(4), 'abcd', 'e')).toEqual([null, { kind: 'too_long' }]);
  });
});

describe('HiddenPrompt', () => {
  it('asks with the terminal raw (no echo), restores it and releases stdin on close', async () => {
    const tty = new FakeTty();
    const err = screen(tty);
    const prompt = new HiddenPrompt(tty, err, 256);
    const answer = prompt.ask('New password: ');
    // UTF-8 split across two reads.
    const key = Buffer.from('ü');
    tty.type(Buffer.from('gr'), key.subarray(0, 1), Buffer.concat([key.subarray(1), Buffer.from('n\r')]));
    expect(await answer).toEqual({ kind: 'line', line: 'grün' });
    await prompt.close();
    expect({ raw: tty.raw, released: tty.released }).toEqual({ raw: false, released: true });
    expect(err.writes).toEqual([
      { text: 'New password: ', raw: true },
      { text: '\n', raw: true },
    ]);
  });

  it('answers eof when the input ends', async () => {
    const tty = new FakeTty();
    const prompt = new HiddenPrompt(tty, screen(tty), 256);
    tty.type('abc');
    tty.end();
    expect(await prompt.ask('New password: ')).toEqual({ kind: 'eof' });
    await prompt.close();
  });
});

describe('reset-password --password-stdin at a terminal', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-reset-tty-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function typed(...chunks: string[]) {
    const tty = new FakeTty();
    const err = screen(tty);
    const out: string[] = [];
    const code = runResetPassword(['--email', 'owner@example.com', '--password-stdin'], { stdin: tty, stdout: { write: (text: string) => out.push(text) }, stderr: err }, { DATA_DIR: dataDir });
    tty.type(...chunks);
    return { code: await code, stderr: err.text(), stdout: out.join(''), raw: tty.raw, released: tty.released };
  }

  it('refuses two different passwords with exit 2, echoing neither, and restores the terminal', async () => {
    const result = await typed('first-password-typed\r', 'other-password-typed\r');
    expect(result).toEqual({
      code: 2,
      stderr: 'New password: \nRepeat it: \nreset-password: the two passwords typed differ; nothing was changed\n',
      stdout: '',
      raw: false,
      released: true,
    });
  });

  it('aborts at Ctrl-C with exit 130, at either prompt', async () => {
    expect(await typed('half-typ\u0003')).toMatchObject({ code: 130, stderr: 'New password: \nreset-password: interrupted (Ctrl-C); nothing was changed\n', raw: false, released: true });
    expect(await typed('first-password-typed\r', '\u0003')).toMatchObject({ code: 130, raw: false });
  });

  it('refuses a password out of bounds before asking for it again', async () => {
    expect(await typed('short\r')).toMatchObject({ code: 2, stderr: 'New password: \nreset-password: the new password must be at least 12 characters (it has 5); nothing was changed\n' });
    expect(await typed('x'.repeat(300))).toMatchObject({ code: 2, stderr: expect.stringContaining('must be at most 256 characters; nothing was changed') });
  });
});
