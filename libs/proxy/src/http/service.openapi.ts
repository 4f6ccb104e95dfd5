import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * SPEC.md "Health and service endpoints", "Approval polling" and `GET /v1/models` as OpenAPI: the
 * answers of GatewayHealthController and ModelsController. Documentation only (the answers are
 * built by those controllers; no schema here is used to validate or to serialize).
 */

const BACKING_SERVICE: SchemaObject = { type: 'string', enum: ['connected', 'disconnected', 'not_configured'] };
const TIMESTAMP: SchemaObject = { type: 'string', format: 'date-time' };

/** `GET /v1/health`: 200 always. */
export const HEALTH_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['status', 'service', 'version', 'timestamp', 'redis', 'mongodb', 'degraded'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    service: { type: 'string', example: 'svc-gateway' },
    version: { type: 'string' },
    timestamp: { ...TIMESTAMP, description: 'ISO 8601 UTC' },
    redis: BACKING_SERVICE,
    mongodb: BACKING_SERVICE,
    degraded: { type: 'boolean', description: 'True when a backing service is unreachable (counters then run in memory)' },
  },
};

/** SPEC.md "Provider circuit-breaker record". */
export const BREAKER_RECORD: SchemaObject = {
  type: 'object',
  required: ['provider', 'state', 'failure_count', 'failure_threshold', 'failure_window_seconds', 'recovery_timeout_seconds', 'last_failure_time', 'last_success_time', 'retry_after_seconds'],
  properties: {
    provider: { type: 'string' },
    state: { type: 'string', enum: ['closed', 'open', 'half_open'] },
    failure_count: { type: 'integer', description: 'Failures within the window' },
    failure_threshold: { type: 'integer', default: 5 },
    failure_window_seconds: { type: 'number', default: 60 },
    recovery_timeout_seconds: { type: 'number', default: 30 },
    last_failure_time: { type: 'number', nullable: true, description: 'Monotonic clock, seconds, of the last failure' },
    last_success_time: { type: 'number', nullable: true, description: 'Monotonic clock, seconds, of the last success' },
    retry_after_seconds: { type: 'number', nullable: true, description: 'Set while open (1 while half-open), else null' },
  },
};

const OVERALL: SchemaObject = { type: 'string', enum: ['healthy', 'degraded', 'unhealthy'] };

/** `GET /v1/providers/health`: the built-in providers' breakers. */
export const PROVIDERS_HEALTH_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['status', 'timestamp', 'providers'],
  properties: {
    status: { ...OVERALL, description: 'healthy when all are closed, degraded when some are open or half-open, unhealthy when all are open' },
    timestamp: TIMESTAMP,
    providers: { type: 'array', items: BREAKER_RECORD },
  },
};

const NON_NEGATIVE_NUMBER: SchemaObject = { type: 'number', minimum: 0 };

/** `GET /v1/health/detailed`: 200 when healthy or degraded, 503 (same body) when every provider is down. */
export const DETAILED_HEALTH_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['overall_status', 'timestamp', 'uptime_seconds', 'components', 'providers', 'metrics', 'cost', 'alerts', 'rate_limits'],
  properties: {
    overall_status: OVERALL,
    timestamp: TIMESTAMP,
    uptime_seconds: { type: 'number' },
    components: {
      type: 'object',
      required: ['gateway', 'redis', 'mongodb'],
      properties: {
        gateway: { type: 'object', required: ['status', 'version'], properties: { status: { type: 'string', enum: ['ok'] }, version: { type: 'string' } } },
        redis: { type: 'object', required: ['status'], properties: { status: BACKING_SERVICE } },
        mongodb: { type: 'object', required: ['status'], properties: { status: BACKING_SERVICE } },
      },
    },
    providers: {
      type: 'object',
      description: 'By provider id',
      additionalProperties: {
        type: 'object',
        required: ['status', 'circuit_breaker'],
        properties: { status: { ...OVERALL, description: 'healthy (closed), degraded (half-open), unhealthy (open)' }, circuit_breaker: BREAKER_RECORD },
      },
    },
    metrics: {
      type: 'object',
      required: ['total_requests', 'error_rate', 'p50_latency_ms', 'p95_latency_ms', 'p99_latency_ms'],
      properties: {
        total_requests: { type: 'integer' },
        error_rate: { type: 'number', minimum: 0, maximum: 1 },
        p50_latency_ms: NON_NEGATIVE_NUMBER,
        p95_latency_ms: NON_NEGATIVE_NUMBER,
        p99_latency_ms: NON_NEGATIVE_NUMBER,
      },
    },
    cost: {
      type: 'object',
      required: ['today_usd', 'daily_budget_usd', 'utilization_pct'],
      properties: {
        today_usd: { type: 'number', description: 'Spend of every organization today' },
        daily_budget_usd: { type: 'number', description: 'Sum of the daily budgets' },
        utilization_pct: { type: 'number' },
      },
    },
    alerts: {
      type: 'array',
      items: { type: 'object', required: ['level', 'message'], properties: { level: { type: 'string', example: 'warning' }, message: { type: 'string' } } },
    },
    rate_limits: {
      type: 'array',
      description: 'The 5 busiest organizations by requests this minute',
      items: {
        type: 'object',
        required: ['org_id', 'current_rpm', 'rpm_limit'],
        properties: { org_id: { type: 'string' }, current_rpm: { type: 'integer' }, rpm_limit: { type: 'integer' } },
      },
    },
  },
};

const ROUTE_NAMES = [
  'chat_completions',
  'provider_chat_completions',
  'messages',
  'provider_messages',
  'embeddings',
  'models',
  'model',
  'approval_status',
  'providers_health',
  'detailed_health',
  'admin',
] as const;

/** `GET /`: the service and its route map. */
export const ROOT_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['service', 'version', 'status', 'docs', 'health', 'liveness', 'metrics', 'endpoints', 'providers'],
  properties: {
    service: { type: 'string', example: 'svc-gateway' },
    version: { type: 'string' },
    status: { type: 'string', enum: ['ok'] },
    docs: { type: 'string', example: '/docs' },
    health: { type: 'string', example: '/v1/health' },
    liveness: { type: 'string', example: '/health' },
    metrics: { type: 'string', example: '/metrics' },
    endpoints: {
      type: 'object',
      description: 'Method and path of each route',
      required: [...ROUTE_NAMES],
      properties: Object.fromEntries(ROUTE_NAMES.map((name) => [name, { type: 'string' }])),
    },
    providers: {
      type: 'array',
      description: 'The built-in providers',
      items: { type: 'object', required: ['id', 'label', 'format'], properties: { id: { type: 'string' }, label: { type: 'string' }, format: { type: 'string', example: 'openai' } } },
    },
  },
};

/** One entry of `GET /v1/models` (format A). */
export const MODEL_ENTRY: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'created', 'owned_by', 'description'],
  properties: {
    id: { type: 'string', description: 'Routable on the generic endpoint: the plain name, or `provider/model`', example: 'gpt-4o' },
    object: { type: 'string', enum: ['model'] },
    created: { type: 'integer', example: 0 },
    owned_by: { type: 'string', description: 'The provider id', example: 'openai' },
    description: { type: 'string' },
  },
};

/** `GET /v1/models` and a provider's list (format A). */
export const MODEL_LIST: SchemaObject = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: MODEL_ENTRY } },
};

/** A format-B provider's model entry (the Models API's `ModelInfo`). */
export const MODEL_INFO: SchemaObject = {
  type: 'object',
  required: ['type', 'id', 'display_name', 'created_at'],
  properties: { type: { type: 'string', enum: ['model'] }, id: { type: 'string' }, display_name: { type: 'string' }, created_at: TIMESTAMP },
};

/** A format-B provider's model page. */
export const MODEL_INFO_PAGE: SchemaObject = {
  type: 'object',
  required: ['data', 'has_more', 'first_id', 'last_id'],
  properties: {
    data: { type: 'array', items: MODEL_INFO },
    has_more: { type: 'boolean' },
    first_id: { type: 'string', nullable: true },
    last_id: { type: 'string', nullable: true },
  },
};

/** SPEC.md "Approval (HITL)" as `GET /v1/approvals/{approval_id}/status` answers it. */
export const APPROVAL_STATUS_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['approval_id', 'status', 'org_id', 'model', 'estimated_cost', 'retry_after_seconds', 'created_at'],
  properties: {
    approval_id: { type: 'string', example: 'apr_...' },
    status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'expired'] },
    org_id: { type: 'string' },
    model: { type: 'string' },
    estimated_cost: { type: 'number', description: 'USD' },
    retry_after_seconds: { type: 'integer' },
    created_at: TIMESTAMP,
    expires_at: { ...TIMESTAMP, description: 'While pending: when it expires' },
    approved_by: { type: 'string', description: 'Reviewer identity; once approved' },
    approved_at: { ...TIMESTAMP, description: 'Once approved' },
    rejected_at: { ...TIMESTAMP, description: 'Once rejected' },
    rejection_reason: { type: 'string', description: 'Once rejected with a reason' },
  },
};
