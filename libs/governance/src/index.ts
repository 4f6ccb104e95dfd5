// Data: tiers, plans, limits and the governance policy.
export * from './data/limits';
export * from './data/tiers';
export * from './data/plan-quotas';
export * from './data/plan-entitlements';
export * from './data/policy';
export * from './data/policy-input';
export * from './data/policy-view';
export * from './data/policy-fields';

// Cost: prices, token counting and the stage 2 estimate.
export * from './cost/prices';
export * from './cost/price-lookup';
export type { TokenizerChoice, TokenizerEncoding } from './cost/tokenizer';
export { approximateTokens, countTextTokens, tokenizerFor, warmUpTokenizers } from './cost/tokenizer';
export * from './cost/tokens';
export * from './cost/estimate';

// Scanners: text extraction, PII (stage 4), content safety (4.5), security (4.6), classifier (4.7).
export * from './scanners/extract';
export type { PiiCategory, PiiDetector, PiiSeverity, PiiSpan, PiiType, PiiTypeInfo } from './scanners/pii/types';
export { PII_TYPES } from './scanners/pii/types';
export type { CardNetwork } from './scanners/pii/validators';
export {
  IBAN_LENGTHS,
  cardNetwork,
  germanTaxIdValid,
  ibanValid,
  icaoCheckDigit,
  luhnValid,
  ninoPrefixValid,
  ssnValid,
} from './scanners/pii/validators';
export * from './scanners/pii/scan-pii';
export { maskPii, piiMask } from './scanners/pii/mask-pii';
export * from './scanners/safety/types';
export { normalizeForScan, normalizedTextOf } from './scanners/safety/normalize';
export type { PhraseRule } from './scanners/safety/rules';
export { INJECTION_RULES } from './scanners/safety/rules';
export { scanContentSafety } from './scanners/safety/content-safety';
export { MAX_BLOB_CHARS, MAX_DECODE_CHARS } from './scanners/safety/encoded';
export type { SecurityScanOptions } from './scanners/safety/security-scanner';
export { scanSecurity } from './scanners/safety/security-scanner';
export * from './scanners/safety/classifier';
export * from './scanners/safety/external-classifier';

// Counter periods: the period key a budget node's spend seed names (the admin service stores it).
export { periodKey } from './counters/periods';

// Chain contract (the proxy's view of governance).
export * from './chain';
