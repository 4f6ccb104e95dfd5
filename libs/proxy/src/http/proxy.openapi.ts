import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiDefaultResponse, ApiOkResponse } from '@nestjs/swagger';
import type { HeaderObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * SPEC.md "Endpoints: Gateway proxy" as OpenAPI: request bodies, response bodies and response
 * headers of the proxy routes. Documentation only: ProxyRoutes serves these routes in an
 * `onRequest` hook and never validates a body with these schemas, so the bodies stay open
 * (`additionalProperties: true`): the gateway forwards the fields it does not read unchanged.
 */

/** An object whose other properties are allowed (and forwarded). */
const OPEN = { type: 'object', additionalProperties: true } as const satisfies SchemaObject;

const FORWARDED = 'Other parameters of the provider format are forwarded unchanged.';

/** The gateway reads it for the cost estimate: a positive integer (400 `invalid_request_error` otherwise). */
const MAX_TOKENS: SchemaObject = { type: 'integer', minimum: 1, maximum: 2_147_483_647 };

const FORMAT_A_MESSAGE: SchemaObject = {
  ...OPEN,
  required: ['role'],
  properties: {
    role: { type: 'string', example: 'user', description: '`system`, `user`, `assistant`, `tool`, ...' },
    content: { description: 'Text, or an array of content parts (null on an assistant message with `tool_calls`)', oneOf: [{ type: 'string' }, { type: 'array', items: OPEN }], nullable: true },
  },
};

export const CHAT_COMPLETION_REQUEST: SchemaObject = {
  ...OPEN,
  required: ['model', 'messages'],
  description: `Format A. ${FORWARDED} (\`top_p\`, \`tools\`, \`tool_choice\`, \`response_format\`, \`stream_options\`, \`max_completion_tokens\`, ...)`,
  properties: {
    model: { type: 'string', example: 'gpt-4o-mini', description: 'The provider is detected from the model, or named as `provider/model`' },
    messages: { type: 'array', minItems: 1, items: FORMAT_A_MESSAGE },
    stream: { type: 'boolean', default: false, description: 'Server-sent events; the gateway asks for usage in the last chunk' },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    max_tokens: MAX_TOKENS,
  },
  example: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
};

export const MESSAGES_REQUEST: SchemaObject = {
  ...OPEN,
  required: ['model', 'max_tokens', 'messages'],
  description: `Format B. ${FORWARDED} (\`temperature\`, \`tools\`, \`tool_choice\`, \`metadata\`, ...)`,
  properties: {
    model: { type: 'string', example: 'claude-3-5-haiku-latest' },
    max_tokens: MAX_TOKENS,
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        ...OPEN,
        required: ['role'],
        properties: {
          role: { type: 'string', enum: ['user', 'assistant'] },
          content: { oneOf: [{ type: 'string' }, { type: 'array', items: OPEN }] },
        },
      },
    },
    stream: { type: 'boolean', default: false },
    system: { description: 'A string, or an array of text content blocks', oneOf: [{ type: 'string' }, { type: 'array', items: OPEN }] },
  },
  example: { model: 'claude-3-5-haiku-latest', max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }] },
};

export const EMBEDDINGS_REQUEST: SchemaObject = {
  ...OPEN,
  required: ['model', 'input'],
  description: `Format A. ${FORWARDED}`,
  properties: {
    model: { type: 'string', example: 'text-embedding-3-small' },
    input: { description: 'The text to embed, or a non-empty array of them', oneOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: {} }] },
  },
  example: { model: 'text-embedding-3-small', input: 'Hello' },
};

const USAGE_A: SchemaObject = {
  ...OPEN,
  properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
};

export const CHAT_COMPLETION_RESPONSE: SchemaObject = {
  ...OPEN,
  description: 'The provider body unchanged (format A; C answers are converted to it).',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', example: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        ...OPEN,
        properties: {
          index: { type: 'integer' },
          message: { ...OPEN, properties: { role: { type: 'string' }, content: { type: 'string', nullable: true } } },
          finish_reason: { type: 'string', nullable: true },
        },
      },
    },
    usage: USAGE_A,
  },
};

export const MESSAGE_RESPONSE: SchemaObject = {
  ...OPEN,
  description: 'The provider body unchanged (format B).',
  properties: {
    id: { type: 'string' },
    type: { type: 'string', example: 'message' },
    role: { type: 'string', example: 'assistant' },
    content: { type: 'array', items: { ...OPEN, properties: { type: { type: 'string', example: 'text' }, text: { type: 'string' } } } },
    model: { type: 'string' },
    stop_reason: { type: 'string', nullable: true },
    usage: { ...OPEN, properties: { input_tokens: { type: 'integer' }, output_tokens: { type: 'integer' } } },
  },
};

export const EMBEDDINGS_RESPONSE: SchemaObject = {
  ...OPEN,
  description: 'The provider body unchanged (format A).',
  properties: {
    object: { type: 'string', example: 'list' },
    data: { type: 'array', items: { ...OPEN, properties: { object: { type: 'string', example: 'embedding' }, index: { type: 'integer' }, embedding: { type: 'array', items: { type: 'number' } } } } },
    model: { type: 'string' },
    usage: USAGE_A,
  },
};

/** SPEC.md "HITL 202 body". */
export const APPROVAL_PENDING_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['status', 'approval_id', 'retry_after_seconds', 'message', 'estimated_cost', 'model'],
  properties: {
    status: { type: 'string', enum: ['pending_approval'] },
    approval_id: { type: 'string' },
    retry_after_seconds: { type: 'integer' },
    message: { type: 'string', description: 'What to do: poll GET /v1/approvals/{approval_id}/status, then send the same request again' },
    estimated_cost: { type: 'number', description: 'USD' },
    model: { type: 'string' },
  },
};

/** SPEC.md "Gateway error format". */
export const GATEWAY_ERROR: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      ...OPEN,
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', example: 'permission_error' },
        param: { type: 'string', nullable: true },
        code: { type: 'string', example: 'daily_budget' },
        gateway_error_code: { type: 'string', example: 'GW_COST_002' },
        remediation: { type: 'string' },
      },
    },
  },
};

const header = (type: 'string' | 'number' | 'integer', description: string): HeaderObject => ({ description, schema: { type } });

/** SPEC.md "Response headers on proxied responses". */
export const PROXY_RESPONSE_HEADERS: Record<string, HeaderObject> = {
  'X-SVC-Request-ID': header('string', 'Unique id for tracing (`gw_` prefix)'),
  'X-SVC-Cost': header('number', 'Estimated cost, USD'),
  'X-SVC-Daily-Cost': header('number', 'Cumulative daily organization spend, USD'),
  'X-SVC-Daily-Budget': header('number', 'Organization daily budget, USD'),
  'X-SVC-Governance-Time-Ms': header('number', 'Time spent in governance checks'),
  'X-RateLimit-Limit': header('integer', 'Max requests per minute'),
  'X-RateLimit-Remaining': header('integer', 'Remaining in the current window'),
  'X-RateLimit-Reset': header('integer', 'Unix timestamp when the window resets'),
  'X-Gateway-Org': header('string', 'Organization context, on every request'),
  'X-SVC-Key-Deprecated': header('string', '`true` while a rotated key is in its grace period'),
  'X-SVC-Grace-Remaining-Hours': header('number', 'Hours until a rotated key stops working'),
};

const APPROVAL_HEADERS: Record<string, HeaderObject> = {
  ...PROXY_RESPONSE_HEADERS,
  'Retry-After': header('integer', 'Seconds to wait before polling'),
  'X-SVC-Approval-ID': header('string', 'The approval to poll'),
};

const STREAM = {
  'text/event-stream': {
    schema: { type: 'string', description: 'With `stream: true`: `data:` lines of chunks (format A: `chat.completion.chunk`, last `data: [DONE]`; format B: its events)' },
  },
} as const;

/** The documentation of one proxy operation: its body, 200 (JSON or SSE), the HITL 202 and errors. */
function proxyOperation(request: SchemaObject, response: SchemaObject, options: { stream: boolean }) {
  return applyDecorators(
    ApiBody({ schema: request, description: 'The provider format body; fields the gateway does not read are forwarded unchanged.' }),
    ApiOkResponse({
      description: 'The provider answer',
      headers: PROXY_RESPONSE_HEADERS,
      content: { 'application/json': { schema: response }, ...(options.stream ? STREAM : {}) },
    }),
    ApiAcceptedResponse({ description: 'Human approval required (HITL): nothing was sent upstream', headers: APPROVAL_HEADERS, content: { 'application/json': { schema: APPROVAL_PENDING_RESPONSE } } }),
    ApiDefaultResponse({ description: 'Gateway error (SPEC.md "Gateway error format"); 429 carries Retry-After and X-RateLimit-*', content: { 'application/json': { schema: GATEWAY_ERROR } } }),
  );
}

export const CHAT_COMPLETIONS_DOCS = proxyOperation(CHAT_COMPLETION_REQUEST, CHAT_COMPLETION_RESPONSE, { stream: true });
export const MESSAGES_DOCS = proxyOperation(MESSAGES_REQUEST, MESSAGE_RESPONSE, { stream: true });
export const EMBEDDINGS_DOCS = proxyOperation(EMBEDDINGS_REQUEST, EMBEDDINGS_RESPONSE, { stream: false });
