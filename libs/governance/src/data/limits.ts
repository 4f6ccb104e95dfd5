/**
 * Fixed limits of the governance chain (SPEC.md "Limits", DECISIONS.md "Gaps filled").
 * Sizes use binary units: 1 MB = 1,048,576 bytes, as the 413 message states both figures.
 */

export const BYTES_PER_MB = 1024 * 1024;

/** No organization override may raise the request body limit above this. */
export const ABSOLUTE_MAX_BODY_BYTES = 200 * BYTES_PER_MB;

/** Budget warning thresholds (percent of a budget) when the policy sets none. */
export const DEFAULT_BUDGET_WARNING_THRESHOLDS: readonly number[] = Object.freeze([50, 75, 90]);

/** Assumed `max_tokens` when a request sets neither `max_tokens` nor `max_completion_tokens`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** Token estimate when a tokenizer cannot count: one token per this many characters. */
export const FALLBACK_CHARS_PER_TOKEN = 4;
