import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
/**
 * Adversarial inputs for the linear-time tests: 1 MB texts built from long runs and repeated
 * near-matches of every scanner pattern (the shapes that make backtracking regexes blow up).
 */

export const ONE_MB = 1024 * 1024;

// A full collection before each measured run, so garbage left by earlier (megabyte-sized) inputs is
// not collected inside the run being timed. `gc` is exposed for this process only (tests).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** `unit` repeated to `size` characters, as one flat string like a parsed JSON body gives. */
function fill(unit: string, size = ONE_MB): string {
  const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return JSON.parse(JSON.stringify(text)) as string;
}

/** Near-misses: each is the start of a pattern that fails late. */
const NEAR_MISSES: Record<string, string> = {
  openai_key: 'sk-abcdefghijklmnopqr ',
  anthropic_key: 'sk-ant-abcdefghijklmnopq ',
  gateway_key: 'svc_sk_abcdefghijklmno ',
  bearer: 'Bearer abcdefghijklmnopqrs ',
  jwt: 'eyJabcde.eyJabcde',
  aws_key: 'AKIAABCDEFGHIJKLMNO ',
  secret_assignment: 'password= ',
  secret_value: 'api_key=abcdefgh',
  url_credentials: 'x://aaaa:bbbb',
  basic_auth: 'Authorization: Basic ',
  private_key: '-----BEGIN PRIVATE ',
  ssn: '123-45-678 ',
  ssn_keyword: 'SSN 123 45 ',
  email: 'a.b@c.',
  email_local: 'aaaaaaaaaaaaaaaaaaaaaaaa@',
  card: '4111 1111 1111 111 ',
  card_digits: '411111111111 ',
  iban: 'DE89 3704 0044 0532 ',
  iban_compact: 'DE8937040044053201300',
  vat: 'DE12345678 ',
  nino: 'AB 12 34 56 ',
  passport: 'passport number ',
  german_id: 'Personalausweis ',
  icd: 'E11. ',
  icd_keyword: 'diagnosis ',
  dose: '500 mg ',
  injection: 'ignore all previous ',
  dan: 'you are now ',
  system_prompt: 'reveal your system ',
  delimiter: '<|im_sta',
  exfil_url: 'https://x.io/?q=',
  markdown_image: '![a](https://x.io/p?d=',
  send_to: 'send the contents to ',
  base64_prefix: 'aWdub3Jl',
  hex_prefix: '69676e6f7265',
  quote: '"ignore ',
  fence: '``` ',
  unicode_tags: '\u{E0069}\u{E0067}',
  zero_width: 'a\u200b',
};

/** Named 1 MB inputs: plain runs plus one per near-miss shape. */
export function adversarialInputs(size = ONE_MB): { name: string; text: string }[] {
  const runs: { name: string; text: string }[] = [
    { name: 'digits', text: fill('1234567890', size) },
    { name: 'a-run', text: fill('a', size) },
    { name: 'upper-run', text: fill('A', size) },
    { name: 'spaces', text: fill(' ', size) },
    { name: 'newlines', text: fill('\n', size) },
    { name: 'base64-chars', text: fill('QWxhZGRpbjpvcGVuIHNlc2FtZQ+/', size) },
    { name: 'hex-chars', text: fill('0123456789abcdef', size) },
    { name: 'at-signs', text: fill('@', size) },
    { name: 'a-at', text: fill('a@', size) },
    { name: 'dots', text: fill('a.', size) },
    { name: 'digit-space', text: fill('1 ', size) },
    { name: 'digit-dash', text: fill('1-', size) },
    { name: 'dashes', text: fill('-', size) },
    { name: 'mixed-words', text: fill('The quick brown fox 42 jumps over the lazy dog. ', size) },
  ];
  const near = Object.entries(NEAR_MISSES).map(([name, unit]) => ({ name: `near-${name}`, text: fill(unit, size) }));
  return [...runs, ...near];
}

export interface Timing {
  /** Process CPU time (user + system) in milliseconds: what the scan itself costs. */
  cpu: number;
  /** Elapsed time in milliseconds: also counts waiting for a core on a loaded machine. */
  wall: number;
  /** The fastest run: the least disturbed by GC and other processes, for growth comparisons. */
  minCpu: number;
}

const median = (values: number[]): number => values.sort((a, b) => a - b)[values.length >> 1];

/**
 * Runs `fn` once to warm up the JIT, collects the garbage once, then returns the medians of three
 * timed runs. CPU time is what the assertions use: other processes competing for the cores (a busy
 * CI machine) stretch the elapsed time but not the work done. A full collection costs more than a
 * scan, so there is one per measurement; the fastest run (`minCpu`) is the one a stray GC missed.
 */
export function measure(fn: () => unknown): Timing {
  fn();
  collectGarbage();
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < 3; i++) {
    const startCpu = process.cpuUsage();
    const start = performance.now();
    fn();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  return { cpu: median(cpu), wall: median(wall), minCpu: Math.min(...cpu) };
}

export const formatTiming = (t: Timing): string => `${t.cpu.toFixed(1).padStart(6)} ms cpu ${t.wall.toFixed(1).padStart(6)} ms wall`;
