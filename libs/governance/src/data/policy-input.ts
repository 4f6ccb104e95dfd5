import { ABSOLUTE_MAX_BODY_BYTES, BYTES_PER_MB } from './limits';
import { PII_ACTIONS, PiiAction, PolicyOverrides } from './policy';

/** One rejected field of a policy write; `field` names the input field (`allowed_models[2]` for an element). */
export interface PolicyFieldError {
  field: string;
  message: string;
}

export type PolicyInputResult = { ok: true; value: PolicyOverrides } | { ok: false; errors: PolicyFieldError[] };

export interface NormalizePolicyOptions {
  /** Ignore fields this function does not know instead of reporting them. Default false. */
  allowUnknown?: boolean;
}

/** Ranges accepted on input. Money is USD. */
export const POLICY_LIMITS = Object.freeze({
  rpm_limit: { min: 1, max: 1_000_000 },
  money: { min: 0, max: 1_000_000_000 },
  max_reasoning_tokens: { min: 1, max: 10_000_000 },
  max_body_bytes: { min: 1, max: ABSOLUTE_MAX_BODY_BYTES },
  list_items: 1000,
  model_id_length: 256,
  skill_name_length: 128,
  warning_thresholds: 10,
});

const MONEY_FIELDS = ['daily_budget', 'monthly_budget', 'max_cost_per_request', 'hitl_cost_threshold'] as const;
/**
 * The fields a policy write takes (`PolicyFieldsDto` documents each): `rate_limit_rpm` is an accepted
 * spelling of `rpm_limit`; `org_id` comes from the route (only its type is checked here).
 */
export const POLICY_INPUT_FIELDS: readonly string[] = [
  'rpm_limit',
  'rate_limit_rpm',
  ...MONEY_FIELDS,
  'pii_scan_enabled',
  'pii_action',
  'allowed_models',
  'max_reasoning_tokens',
  'allowed_skills',
  'budget_warning_thresholds',
  'max_body_bytes',
  'org_id',
];
const KNOWN_FIELDS = new Set<string>(POLICY_INPUT_FIELDS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function integerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function numberIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function stringList(field: string, value: unknown, maxLength: number, errors: PolicyFieldError[]): string[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ field, message: 'must be an array of strings' });
    return undefined;
  }
  if (value.length > POLICY_LIMITS.list_items) {
    errors.push({ field, message: `must have at most ${POLICY_LIMITS.list_items} entries` });
    return undefined;
  }
  const result: string[] = [];
  let valid = true;
  value.forEach((item, index) => {
    const text = typeof item === 'string' ? item.trim() : '';
    if (text.length === 0 || text.length > maxLength) {
      errors.push({ field: `${field}[${index}]`, message: `must be a non-empty string of at most ${maxLength} characters` });
      valid = false;
    } else if (!result.includes(text)) {
      result.push(text);
    }
  });
  return valid ? result : undefined;
}

function thresholds(value: unknown, errors: PolicyFieldError[]): number[] | undefined {
  const field = 'budget_warning_thresholds';
  if (!Array.isArray(value) || value.length > POLICY_LIMITS.warning_thresholds) {
    errors.push({ field, message: `must be an array of at most ${POLICY_LIMITS.warning_thresholds} percentages` });
    return undefined;
  }
  let valid = true;
  value.forEach((item, index) => {
    if (!numberIn(item, 0, 100) || item === 0) {
      errors.push({ field: `${field}[${index}]`, message: 'must be a number greater than 0 and at most 100' });
      valid = false;
    }
  });
  return valid ? [...new Set(value as number[])].sort((a, b) => a - b) : undefined;
}

/**
 * Validates and normalizes a policy write (create, replace or patch). Every present field is
 * checked; all errors are returned together. `rate_limit_rpm` is normalized to `rpm_limit`
 * (both given with different values is an error). `max_reasoning_tokens: null` clears the cap.
 * Lists are trimmed and de-duplicated; warning thresholds are sorted ascending.
 */
export function normalizePolicyInput(input: unknown, options: NormalizePolicyOptions = {}): PolicyInputResult {
  if (!isPlainObject(input)) return { ok: false, errors: [{ field: '', message: 'policy must be a JSON object' }] };
  const errors: PolicyFieldError[] = [];
  const value: PolicyOverrides = {};
  const has = (field: string) => Object.prototype.hasOwnProperty.call(input, field) && input[field] !== undefined;

  if (!options.allowUnknown) {
    for (const field of Object.keys(input)) {
      if (!KNOWN_FIELDS.has(field)) errors.push({ field, message: 'unknown policy field' });
    }
  }

  // Matched against the route's organization by the caller; here only its type is checked.
  if (has('org_id') && typeof input.org_id !== 'string') errors.push({ field: 'org_id', message: 'must be a string (the organization id)' });

  if (has('rpm_limit') || has('rate_limit_rpm')) {
    const field = has('rpm_limit') ? 'rpm_limit' : 'rate_limit_rpm';
    const rpm = input[field];
    const { min, max } = POLICY_LIMITS.rpm_limit;
    if (has('rpm_limit') && has('rate_limit_rpm') && input.rpm_limit !== input.rate_limit_rpm) {
      errors.push({ field: 'rate_limit_rpm', message: 'conflicts with rpm_limit; send one of them' });
    } else if (!integerIn(rpm, min, max)) {
      errors.push({ field, message: `must be an integer from ${min} to ${max}` });
    } else {
      value.rpm_limit = rpm;
    }
  }

  for (const field of MONEY_FIELDS) {
    if (!has(field)) continue;
    const { min, max } = POLICY_LIMITS.money;
    if (numberIn(input[field], min, max)) value[field] = input[field] as number;
    else errors.push({ field, message: `must be a number (USD) from ${min} to ${max}` });
  }

  if (has('pii_scan_enabled')) {
    if (typeof input.pii_scan_enabled === 'boolean') value.pii_scan_enabled = input.pii_scan_enabled;
    else errors.push({ field: 'pii_scan_enabled', message: 'must be a boolean' });
  }

  if (has('pii_action')) {
    const action = typeof input.pii_action === 'string' ? input.pii_action.trim().toLowerCase() : '';
    if ((PII_ACTIONS as readonly string[]).includes(action)) value.pii_action = action as PiiAction;
    else errors.push({ field: 'pii_action', message: `must be one of ${PII_ACTIONS.join(', ')}` });
  }

  if (has('allowed_models')) {
    const list = stringList('allowed_models', input.allowed_models, POLICY_LIMITS.model_id_length, errors);
    if (list) value.allowed_models = list;
  }

  if (has('allowed_skills')) {
    const list = stringList('allowed_skills', input.allowed_skills, POLICY_LIMITS.skill_name_length, errors);
    if (list) value.allowed_skills = list;
  }

  if (has('max_reasoning_tokens')) {
    const { min, max } = POLICY_LIMITS.max_reasoning_tokens;
    const cap = input.max_reasoning_tokens;
    if (cap === null || integerIn(cap, min, max)) value.max_reasoning_tokens = cap;
    else errors.push({ field: 'max_reasoning_tokens', message: `must be null or an integer from ${min} to ${max}` });
  }

  if (has('budget_warning_thresholds')) {
    const list = thresholds(input.budget_warning_thresholds, errors);
    if (list) value.budget_warning_thresholds = list;
  }

  if (has('max_body_bytes')) {
    const { min, max } = POLICY_LIMITS.max_body_bytes;
    if (integerIn(input.max_body_bytes, min, max)) value.max_body_bytes = input.max_body_bytes;
    else {
      errors.push({
        field: 'max_body_bytes',
        message: `must be an integer from ${min} to ${max} bytes (${max / BYTES_PER_MB} MB)`,
      });
    }
  }

  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}
