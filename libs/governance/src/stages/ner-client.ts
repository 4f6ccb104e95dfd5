import type { PiiSeverity } from '../scanners/pii/types';

/** One entity of a Presidio-compatible analyzer (`POST {url}/analyze`). */
export interface NerEntity {
  entity_type: string;
  start: number;
  end: number;
  score: number;
}

export interface PiiNerClient {
  analyze(text: string): Promise<NerEntity[]>;
}

export interface PresidioClientOptions {
  /** Deadline of one call (default 300 ms): NER must not hold a request up. */
  timeoutMs?: number;
  language?: string;
  /** Entities below this confidence are ignored (default 0.5). */
  minScore?: number;
}

/** Calls a Presidio-compatible analyzer with a deadline; any failure rejects (the caller fails open). */
export class PresidioNerClient implements PiiNerClient {
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly language: string;
  private readonly minScore: number;

  constructor(baseUrl: string, options: PresidioClientOptions = {}) {
    this.url = `${baseUrl.replace(/\/+$/, '')}/analyze`;
    this.timeoutMs = options.timeoutMs ?? 300;
    this.language = options.language ?? 'en';
    this.minScore = options.minScore ?? 0.5;
  }

  async analyze(text: string): Promise<NerEntity[]> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // A redirect would re-send the prompt wherever it points: an error, which the stage fails open on.
      redirect: 'error',
      body: JSON.stringify({ text, language: this.language }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) throw new Error(`PII analyzer answered ${response.status}`);
    const body = (await response.json()) as unknown;
    if (!Array.isArray(body)) throw new Error('PII analyzer answered with something other than a list');
    return body.filter(
      (item): item is NerEntity =>
        typeof item === 'object' &&
        item !== null &&
        typeof item.entity_type === 'string' &&
        typeof item.start === 'number' &&
        typeof item.end === 'number' &&
        (typeof item.score !== 'number' || item.score >= this.minScore),
    );
  }
}

/** Presidio entity types that are government, financial or credential identifiers. */
const CRITICAL = new Set([
  'CREDIT_CARD', 'US_SSN', 'US_ITIN', 'US_PASSPORT', 'US_BANK_NUMBER', 'US_DRIVER_LICENSE', 'IBAN_CODE', 'UK_NHS', 'UK_NINO',
  'ES_NIF', 'ES_NIE', 'IT_FISCAL_CODE', 'IT_DRIVER_LICENSE', 'IT_PASSPORT', 'IT_IDENTITY_CARD', 'IT_VAT_CODE', 'PL_PESEL',
  'SG_NRIC_FIN', 'AU_TFN', 'AU_MEDICARE', 'AU_ABN', 'AU_ACN', 'IN_AADHAAR', 'IN_PAN', 'IN_PASSPORT', 'IN_VOTER', 'FI_PERSONAL_IDENTITY_CODE',
]);
const HIGH = new Set(['CRYPTO', 'MEDICAL_LICENSE']);

/** Severity of an analyzer entity: identifiers are CRITICAL, wallets and licences HIGH, the rest MEDIUM. */
export function nerSeverity(entityType: string): PiiSeverity {
  const type = entityType.toUpperCase();
  if (CRITICAL.has(type)) return 'CRITICAL';
  if (HIGH.has(type)) return 'HIGH';
  return 'MEDIUM';
}
