import type { IncomingMessage, RequestOptions } from 'node:http';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { carriesSecretInPath, redactQuery, redactUrl } from './redact-url';

/** Probe and scrape routes: polled every few seconds by Kubernetes and Prometheus, never traced. */
export const UNTRACED_PATHS: readonly string[] = ['/health', '/v1/health', '/metrics'];

const untraced = (url: string | undefined) => UNTRACED_PATHS.includes((url ?? '').split('?', 1)[0]);

/**
 * What is traced (loaded only when an OTLP endpoint is configured, before the modules they patch):
 * - `http`: one SERVER span per incoming request (method, route, status) and a CLIENT span per
 *   outgoing node:http request;
 * - `@fastify/otel`: a `request` span and a route-handler span per request, with `http.route`;
 * - `undici`: a CLIENT span per upstream provider call, webhook delivery and fetch();
 * - `ioredis` and `mongoose`: a span per command/operation made while handling a request.
 * Query strings are recorded with credential values masked; headers and bodies are never recorded.
 */
export function loadInstrumentations(): NonNullable<NodeSDKConfiguration['instrumentations']> {
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { MongooseInstrumentation } = require('@opentelemetry/instrumentation-mongoose') as typeof import('@opentelemetry/instrumentation-mongoose');
  const { FastifyOtelInstrumentation } = require('@fastify/otel') as typeof import('@fastify/otel');
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request: IncomingMessage) => untraced(request.url),
      startIncomingSpanHook: (request: IncomingMessage) => {
        const query = queryOf(request.url);
        return query ? { 'url.query': redactQuery(query) } : {};
      },
      startOutgoingSpanHook: (options: RequestOptions) => {
        const path = options.path ?? '/';
        if (!path.includes('?')) return {};
        const port = options.port ? `:${options.port}` : '';
        return { 'url.full': redactUrl(`${options.protocol ?? 'http:'}//${options.hostname ?? options.host ?? 'localhost'}${port}${path}`) };
      },
    }),
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      // One request span and one handler span per request; hook spans would multiply the cost.
      instrumentHooks: false,
      ignorePaths: ({ url }) => untraced(url),
      requestHook: (span, request) => {
        if (request.url.includes('?')) span.setAttribute('url.path', redactUrl(request.url));
      },
    }),
    new UndiciInstrumentation({
      startSpanHook: (request) => undiciUrlAttributes(request.origin, request.path),
    }),
    // The command and its first argument (the key, or the script's SHA); values are never recorded.
    new IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command, args) => (args.length ? `${command} ${String(args[0])} [${args.length - 1} more]` : command),
    }),
    new MongooseInstrumentation({ requireParentSpan: true }),
  ];
}

function queryOf(url: string | undefined): string {
  const mark = url?.indexOf('?') ?? -1;
  return mark < 0 || !url ? '' : url.slice(mark + 1).split('#', 1)[0];
}

/**
 * The URL attributes of an undici CLIENT span that replace the instrumentation's own when the URL
 * carries a credential: credential query values masked, and the path (with its query) of an
 * incoming webhook whose path is its secret (`carriesSecretInPath`: Slack, Discord, Teams, `/hooks/<token>`)
 * dropped, keeping scheme and host. Empty when nothing needs masking.
 */
export function undiciUrlAttributes(origin: string, path: string): Record<string, string> {
  let host = '';
  try {
    host = new URL(origin).host;
  } catch {
    // Not a URL origin: judged by its path alone.
  }
  if (carriesSecretInPath(host, path)) return { 'url.full': `${origin}/…`, 'url.path': '/…', 'url.query': '' };
  const query = queryOf(path);
  return query ? { 'url.full': redactUrl(`${origin}${path}`), 'url.query': `?${redactQuery(query)}` } : {};
}
