import { z } from 'zod';
import { isValidIpEntry } from './ip-entry';

/** A boolean whose default depends on other settings (resolved by loadConfig): undefined when unset. */
const optionalBool = () =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], {
      errorMap: () => ({ message: 'must be one of true, false, 1, 0, yes, no' }),
    })
    .optional()
    .transform((value) => (value === undefined ? undefined : ['true', '1', 'yes'].includes(value)));

const bool = (fallback: boolean) => optionalBool().transform((value) => value ?? fallback);

/** 0 asks the OS for a free port (tests). */
const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .refine((value) => value === undefined || protocols.some((p) => value.startsWith(`${p}://`)), {
      message: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
    });

/** Any text; empty counts as unset. */
const optionalText = () =>
  z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value));

const base64Key = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value))
  .refine((value) => value === undefined || Buffer.from(value, 'base64').length === 32, {
    message: 'must be 32 bytes encoded as base64 (openssl rand -base64 32)',
  });

/**
 * Every environment variable the service reads. README.md "Configuration" lists each one;
 * keep the two in step (a test compares them).
 */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_BODIES: bool(false),
  /** One info line per request answered; unset: on unless NODE_ENV is production (see loadConfig). */
  ACCESS_LOG: optionalBool(),
  HOST: z.string().min(1).default('0.0.0.0'),
  GATEWAY_PORT: port(8002),
  ORG_API_PORT: port(8001),
  GATEWAY_ADMIN_PORT: port(8003),
  RUNNER_CONTROL_PLANE_PORT: port(8004),
  WEBHOOK_DISPATCHER_PORT: port(8005),
  REDIS_URL: optionalUrl(['redis', 'rediss']),
  MONGODB_URI: optionalUrl(['mongodb', 'mongodb+srv']),
  /** Put into REDIS_URL / MONGODB_URI (percent-encoded) by loadConfig: a password kept apart from its URL. */
  REDIS_PASSWORD: optionalText(),
  MONGODB_PASSWORD: optionalText(),
  /** maxTimeMS of every MongoDB query, update, delete and aggregation; the socket waits 5 s longer. */
  MONGODB_OPERATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  DATA_DIR: z.string().min(1).default('./.data'),
  MASTER_ENCRYPTION_KEY: base64Key,
  MASTER_ENCRYPTION_KEY_PREVIOUS: base64Key,
  MASTER_ENCRYPTION_KEY_VERSION: z.coerce.number().int().min(1).max(1_000_000).default(1),
  JWT_SECRET: z
    .string()
    .optional()
    .refine((value) => value === undefined || value.length >= 32, { message: 'must be at least 32 characters' }),
  JWT_ISSUER: z.string().min(1).default('svc-org-api'),
  JWT_AUDIENCE: z.string().min(1).default('svc-gateway'),
  // A malformed entry would trust nobody in its place, silently: refused at start, named.
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean))
    .superRefine((entries, ctx) => {
      const bad = entries.filter((entry) => !isValidIpEntry(entry));
      if (bad.length) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `not an IP address or CIDR range: ${bad.join(', ')}` });
    }),
  BOOTSTRAP_ORG_NAME: z.string().min(1).default('Default Organization'),
  BOOTSTRAP_ADMIN_EMAIL: z.string().email().default('admin@example.com'),
  BOOTSTRAP_ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  BOOTSTRAP_ORG_PLAN: z.enum(['free', 'starter', 'growth', 'enterprise', 'pro', 'team']).default('growth'),
  SIGNUP_ENABLED: bool(false),
  PLAN_ADMIN_ENABLED: bool(false),
  RUNNERS_ENABLED: bool(true),
  /** The `local` runner provider (commands as child processes of the service, on its host): off unless turned on. */
  RUNNER_LOCAL_ENABLED: bool(false),
  RUNNER_WORK_DIR: z.string().min(1).optional(),
  RUNNER_OUTPUT_CAP_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(64 * 1024),
  RUNNER_SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(1000),
  RUNNER_STREAM_HEARTBEAT_MS: z.coerce.number().int().min(10).max(600_000).default(15_000),
  CONTENT_SAFETY_SCAN: bool(false),
  DLP_GUARDRAILS: bool(false),
  SECURITY_SCANNER: bool(false),
  PII_NER: bool(false),
  PII_NER_URL: optionalUrl(['http', 'https']),
  AI_CLASSIFIER_URL: optionalUrl(['http', 'https']),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: bool(false),
  DISCOVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  DISCOVERY_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(5 * 1024 * 1024),
  WEBHOOK_ALLOW_HTTP: bool(false),
  ORG_API_RATE_LIMIT_RPM: z.coerce.number().int().min(1).max(1_000_000).default(600),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  /** Webhooks one organization may register (any status); the next create is 409 `WEBHOOK_LIMIT_REACHED`. */
  WEBHOOK_MAX_PER_ORG: z.coerce.number().int().min(1).max(100_000).default(100),
  /** A webhook or team-chat receiver that has not answered within this long fails the attempt (SPEC: 10 s). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(10_000),
  /** Lock of a dispatcher job; a dispatcher that dies mid-job hands it over once the lock expires. */
  WEBHOOK_WORKER_LOCK_MS: z.coerce.number().int().min(200).max(600_000).default(30_000),
  /**
   * How often the webhook dispatcher puts back deliveries whose next attempt is more than this
   * overdue (their queued retry was lost: Redis lost its data); 0 turns the sweep off.
   */
  WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** How often the cost-anomaly rules run; 0 turns the detector off. */
  ANOMALY_CHECK_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** How often named-budget alerts are evaluated by the worker process (webhook dispatcher, standalone); 0 turns the check off. */
  BUDGET_ALERT_CHECK_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  APPROVAL_TTL_HOURS: z.coerce.number().positive().max(24 * 30).default(24),
  PLAN_DAILY_QUOTAS: z
    .string()
    .optional()
    .refine(
      (value) =>
        value === undefined ||
        value.trim() === '' ||
        value.split(',').every((pair) => /^\s*(free|starter|growth|enterprise|pro|team)\s*=\s*(\d+|unlimited)\s*$/i.test(pair)),
      { message: 'must be comma-separated tier=count pairs (count a whole number or unlimited), e.g. free=100,enterprise=unlimited' },
    ),
  /**
   * Price of models the price table does not know, USD per 1 million tokens: `input,output` or
   * `input,output,cached_input` (default 3,15,0.3: a mid-range frontier model, so budgets still bind).
   */
  DEFAULT_MODEL_PRICE: z
    .string()
    .default('3,15,0.3')
    .refine((value) => /^\s*\d+(\.\d+)?\s*,\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)?$/.test(value), {
      message: 'must be input,output or input,output,cached_input in USD per 1M tokens, e.g. 3,15,0.3',
    }),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(['http', 'https']),
  OTEL_SERVICE_NAME: z.string().optional(),
  CIRCUIT_BREAKER_FAILURE_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),
  CIRCUIT_BREAKER_WINDOW_SECONDS: z.coerce.number().positive().max(3600).default(60),
  CIRCUIT_BREAKER_RECOVERY_SECONDS: z.coerce.number().positive().max(3600).default(30),
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  UPSTREAM_TOTAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(7_200_000).default(600_000),
  /** V8's old-generation growth past the live size before a full GC, in percent; 0 = V8's default. */
  GC_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1000).default(30),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
});

export type RawConfig = z.infer<typeof configSchema>;
