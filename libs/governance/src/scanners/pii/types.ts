/** PII types, categories and severities (SPEC.md "Stage 4, PII scan"). */

export type PiiSeverity = 'CRITICAL' | 'HIGH' | 'MEDIUM';
export type PiiCategory = 'credentials' | 'personal_identifiers' | 'financial' | 'eu_compliance' | 'health';

export type PiiType =
  | 'openai_api_key'
  | 'anthropic_api_key'
  | 'gateway_api_key'
  | 'bearer_token'
  | 'cloud_access_key'
  | 'github_token'
  | 'slack_token'
  | 'webhook_url'
  | 'generic_secret'
  | 'ssn'
  | 'email'
  | 'credit_card'
  | 'iban'
  | 'eu_vat_number'
  | 'eu_passport_number'
  | 'uk_nino'
  | 'de_id_number'
  | 'icd10_code'
  | 'medication_dosage';

export interface PiiTypeInfo {
  category: PiiCategory;
  severity: PiiSeverity;
}

/**
 * Severity per SPEC.md: CRITICAL for SSN, card, IBAN and passport; HIGH for credentials; MEDIUM
 * for e-mail, VAT and health codes. UK national insurance numbers and German ID numbers are
 * government identity numbers like an SSN or a passport number, so they are CRITICAL too.
 */
export const PII_TYPES: Readonly<Record<PiiType, Readonly<PiiTypeInfo>>> = Object.freeze({
  openai_api_key: { category: 'credentials', severity: 'HIGH' },
  anthropic_api_key: { category: 'credentials', severity: 'HIGH' },
  gateway_api_key: { category: 'credentials', severity: 'HIGH' },
  bearer_token: { category: 'credentials', severity: 'HIGH' },
  cloud_access_key: { category: 'credentials', severity: 'HIGH' },
  github_token: { category: 'credentials', severity: 'HIGH' },
  slack_token: { category: 'credentials', severity: 'HIGH' },
  webhook_url: { category: 'credentials', severity: 'HIGH' },
  generic_secret: { category: 'credentials', severity: 'HIGH' },
  ssn: { category: 'personal_identifiers', severity: 'CRITICAL' },
  email: { category: 'personal_identifiers', severity: 'MEDIUM' },
  credit_card: { category: 'financial', severity: 'CRITICAL' },
  iban: { category: 'financial', severity: 'CRITICAL' },
  eu_vat_number: { category: 'eu_compliance', severity: 'MEDIUM' },
  eu_passport_number: { category: 'eu_compliance', severity: 'CRITICAL' },
  uk_nino: { category: 'eu_compliance', severity: 'CRITICAL' },
  de_id_number: { category: 'eu_compliance', severity: 'CRITICAL' },
  icd10_code: { category: 'health', severity: 'MEDIUM' },
  medication_dosage: { category: 'health', severity: 'MEDIUM' },
});

/** Where a validated match lies in a text: text[start, end). Offsets only, never the matched value. */
export interface PiiSpan {
  start: number;
  end: number;
}

/** A pattern detector: the spans of its validated matches in a text (`maskPii` masks them; stage 4 counts their starts). */
export interface PiiDetector {
  readonly type: PiiType;
  find(text: string): PiiSpan[];
}
