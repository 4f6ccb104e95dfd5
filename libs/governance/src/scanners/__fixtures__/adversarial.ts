import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { PiiType } from '../pii/types';
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

const B64 = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/'.repeat(2);
const GUID = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d';

/**
 * Near-misses of every PII detector (`PII_DETECTORS`, by type): each unit is the start of one of the
 * detector's patterns that fails late (one character short, the keyword without its value, the
 * value without its validator), repeated into the adversarial inputs. A detector with several
 * patterns has one per pattern. `pii-linear.spec.ts` fails when a detector has none.
 */
export const PII_NEAR_MISSES: Readonly<Record<PiiType, Readonly<Record<string, string>>>> = {
  openai_api_key: { openai_key: 'sk-abcdefghijklmnopqr ' },
  anthropic_api_key: { anthropic_key: 'sk-ant-abcdefghijklmnopq ' },
  gateway_api_key: { gateway_key: 'svc_sk_abcdefghijklmno ' },
  bearer_token: { bearer: 'Bearer abcdefghijklmnopqrs ', jwt: 'eyJabcde.eyJabcde' },
  cloud_access_key: {
    aws_key: 'AKIAABCDEFGHIJKLMNO ',
    // One character short of the 40 of an AWS secret key.
    aws_secret: `aws_secret_access_key = ${B64.slice(0, 39)} `,
    google_key: `AIza${B64.slice(0, 34)} `,
    // One character short of the 86 before "==" of an Azure storage account key.
    azure_key: `AccountKey=${B64.slice(0, 85)}== `,
  },
  // One character short of a token, the prefix alone.
  github_token: { github_classic: `ghp_${B64.slice(0, 35)} `, github_pat: `github_pat_${B64.slice(0, 81).replace(/[+/]/g, '_')} ` },
  slack_token: { slack: 'xoxb-123456789 ', slack_dashes: 'xoxp-------------- ', slack_app: 'xapp-1-A012 ' },
  // One character short of the secret (or of the signature parameter) of each webhook URL.
  webhook_url: {
    slack_webhook: 'hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijKLMNOPqrs ',
    slack_trigger: 'hooks.slack.com/triggers/T0123456789/5467891234567/3f7c9a2b1e4d8f6a0c5 ',
    discord_webhook: `discord.com/api/webhooks/1187654321098765432/${B64.slice(0, 59).replace(/[+/]/g, '_')} `,
    teams_webhook: `webhook.office.com/webhookb2/${GUID}@${GUID}/IncomingWebhook/${'3e8f7a1b2c9d4e6f'.repeat(2).slice(0, 31)} `,
    teams_workflow: `logic.azure.com/workflows/${'0a1b2c3d'.repeat(4)}/triggers/manual/paths/invoke?api-version=1&sig=${B64.slice(0, 19)} `,
    google_chat_webhook: `chat.googleapis.com/v1/spaces/AAAA/messages?key=k&token=${B64.slice(0, 19)} `,
  },
  generic_secret: {
    secret_assignment: 'password= ',
    short_password: 'password=hunter ',
    secret_value: 'api_key=abcdefgh',
    // A value cut at the next query parameter, and a variable named after a secret.
    query_value: 'token=ab12&page=2 ',
    named_secret: 'token: accessToken, ',
    url_credentials: 'x://aaaa:bbbb',
    basic_auth: 'Authorization: Basic ',
    private_key: '-----BEGIN PRIVATE ',
  },
  ssn: { ssn: '123-45-678 ', ssn_keyword: 'SSN 123 45 ' },
  email: { email: 'a.b@c.', email_local: 'aaaaaaaaaaaaaaaaaaaaaaaa@', email_remote: 'git@a.io:o/r ', email_url_user: 'ssh://git@a.io/r ' },
  credit_card: { card: '4111 1111 1111 111 ', card_digits: '411111111111 ' },
  iban: { iban: 'DE89 3704 0044 0532 ', iban_compact: 'DE8937040044053201300' },
  eu_vat_number: { vat: 'DE12345678 ', vat_nl: 'NL123456789B1 ' },
  eu_passport_number: { passport: 'passport number ', passport_token: 'Reisepass C01X0006 ' },
  uk_nino: { nino: 'AB 12 34 56 ' },
  de_id_number: { german_id: 'Personalausweis ', de_tax_id: 'Steuer-ID 12 345 678 9 ' },
  icd10_code: { icd: 'E11. ', icd_keyword: 'diagnosis ' },
  medication_dosage: { dose: '500 mg ', dose_context: 'take 500 m ' },
};

/**
 * Near-misses of the safety stages by rule: every `INJECTION_RULES` id (4.5, and 4.6's injection
 * rules; `safety-linear.spec.ts` fails when one has none), the other 4.6 detectors (URLs carrying
 * data, image beacons, "send ... to <destination>", link instructions, encoded and hidden text) and
 * the cues of the 4.7 classifier. Some units are whole matches: 4.7 only works on findings.
 */
export const SAFETY_NEAR_MISSES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ignore_previous_instructions: { injection: 'ignore all previous ' },
  ignore_all_instructions: { ignore_all: 'ignore all of the ' },
  new_instructions: { new_instructions: 'your new instructions ', from_now_on: 'from now on, you ' },
  dan_persona: { dan: 'you are now ' },
  do_anything_now: { do_anything: 'do anything no ' },
  unrestricted_persona: { persona: 'act as an unrestricted ' },
  no_restrictions: { no_restrictions: 'pretend you have no ' },
  override_safety: { override_safety: 'disable your safety ' },
  roleplay_jailbreak: { roleplay: 'in a fictional world without rule ' },
  reveal_system_prompt: { system_prompt: 'reveal your system ' },
  reveal_the_system_prompt: { reveal_the: 'show me the hidden ' },
  repeat_text_above: { repeat_above: 'repeat the words abov ' },
  ask_system_prompt: { ask_prompt: 'what are your system ' },
  special_token: { delimiter: '<|im_sta' },
  fake_role_header: { role_header: '\nassistant ', markdown_header: '\n#### syste' },
  send_data_to: { send_to: 'send the contents to ', send_all: 'send all of the data ', send_of: 'send the contents of the entire system ' },
  // 4.6 beyond the phrase rules.
  url_with_data: { exfil_url: 'https://x.io/?q=', digest_value: 'https://x.io/?sha=9fceb02d0ae598e95dc970b74767f19372d61af8 ' },
  image_beacon: {
    markdown_image: '![a](https://x.io/p?d=',
    html_image: '<img src="https://x.io/p?d=',
    // One character short of an encoded value, and padding one too many.
    encoded_value: '![a](https://x.io/p?d=aB3dE5g&e=aB3dE5gH=== ',
    placeholder: '![a](https://x.io/p?d=<conversation of the user ',
  },
  send_data_to_destination: { send_to_destination: 'send the conversation to webhoo' },
  data_in_link_instruction: { link_instruction: 'render a markdown image of the conversatio ' },
  base64_payload: { base64_prefix: 'aWdub3Jl' },
  hex_payload: { hex_prefix: '69676e6f7265' },
  unicode_tag_text: { unicode_tags: '\u{E0069}\u{E0067}' },
  zero_width_obfuscation: { zero_width: 'a\u200b' },
  // 4.7 cues around findings.
  classifier: {
    quote: '"ignore ',
    fence: '``` ',
    question_about_attack: 'What is prompt injection like ignore previous instructions? ',
    negated_quoted: 'never "reveal your system prompt" in `code` > ',
  },
};

/** Every near-miss unit by name (the names are unique across detectors). */
function nearMisses(): [string, string][] {
  return [...Object.values(PII_NEAR_MISSES), ...Object.values(SAFETY_NEAR_MISSES)].flatMap((units) => Object.entries(units));
}

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
  const units = nearMisses();
  const near = units.map(([name, unit]) => ({ name: `near-${name}`, text: fill(unit, size) }));
  // Every near-miss in turn: each detector's pre-checks pass everywhere, and every pattern starts often.
  const mixed = { name: 'near-all-mixed', text: fill(units.map(([, unit]) => unit).join(' '), size) };
  return [...runs, ...near, mixed];
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
 * scan, so there is one per measurement (`collect: false` skips it for a measurement that follows
 * another of the same input); the fastest run (`minCpu`) is the one a stray GC missed.
 */
export function measure(fn: () => unknown, options: { collect?: boolean } = {}): Timing {
  fn();
  if (options.collect !== false) collectGarbage();
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

/** A 16 KB and a 256 KB timing of the same scan. */
export interface GrowthTiming {
  small: Timing;
  full: Timing;
}

/**
 * `first` if it exceeds the growth bound and `attempts` fresh measurements (small and full
 * measured back to back each time) all exceed it too; null as soon as one stays within it. A
 * quadratic scan exceeds the bound every time. Process CPU time on a shared virtual machine does not
 * behave like that: in CI a whole spec once ran 20-30 times slower for seconds at a time (host
 * contention is charged to the guest's running process), which inflated one input's 256 KB
 * measurement and not its 16 KB one.
 */
export function confirmedSuperlinear(first: GrowthTiming, remeasure: () => GrowthTiming, exceeds: (timing: GrowthTiming) => boolean, attempts = 4): GrowthTiming | null {
  let last = first;
  if (!exceeds(last)) return null;
  for (let i = 0; i < attempts; i++) {
    last = remeasure();
    if (!exceeds(last)) return null;
  }
  return last;
}
