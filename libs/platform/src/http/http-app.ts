import { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorSurface } from '../errors/errors';
import { SurfaceExceptionFilter, UnroutedRefusal } from '../errors/exception.filter';
import { NestPinoLogger } from '../logging/nest-logger';
import type { TextMask } from '../logging/redact';
import { accessLogEnabled, useAccessLog } from './access-log';
import { bodyLoggingEnabled, useBodyLogging } from './body-log';
import { clientErrorHandler, frameworkErrorHandler } from './client-error';
import { useJsonBodies } from './json-body';
import { MAX_PARAM_LENGTH } from './router-limits';
import { useApiResponseHeaders } from './security-headers';
import { createValidationPipe } from './validation';

export { MAX_PARAM_LENGTH } from './router-limits';

export interface HttpAppOptions {
  /** Service name, used in logs and the OpenAPI title. */
  name: string;
  surface: ErrorSurface;
  logger: Logger;
  /** Largest body Fastify buffers, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** OpenAPI document served at /docs (interactive) and /docs/json. */
  docs?: { title: string; description: string; version: string };
  /** Prefix of generated request ids (`gw_` on the gateway surfaces). */
  requestIdPrefix?: string;
  /** Requests under this path prefix get their body unread (see useJsonBodies). */
  rawBodyPrefix?: string;
  /** Prefixes under rawBodyPrefix whose bodies are parsed all the same (see useJsonBodies). */
  parsedBodyPrefixes?: readonly string[];
  /** `LOG_BODIES`: log request bodies (credentials redacted); only when the logger is at debug or below. */
  logBodies?: boolean;
  /** With `logBodies`: masks the personal data in every logged string value (the services pass governance's `maskPii`). */
  maskLoggedText?: TextMask;
  /** `ACCESS_LOG`: one info line per request answered (see useAccessLog). */
  accessLog?: boolean;
  /**
   * The global ValidationPipe for class-validator DTOs (default true). false for a surface whose
   * routes take no DTO: the pipe would load class-validator for nothing.
   */
  validation?: boolean;
  /**
   * The refusal of a request no route serves, for the paths the surface words its own way (the
   * gateway admin: `/v1/admin`, as the gateway's port answers it); undefined for any other path, and
   * by default, gives the generic 404 (`unroutedRefusal`), never Nest's `Cannot GET /x`.
   */
  notFound?: UnroutedRefusal;
}

/** Creates a NestJS application on Fastify with the surface's error format, validation and docs. */
export async function createHttpApp(module: Type<unknown>, options: HttpAppOptions): Promise<NestFastifyApplication> {
  const prefix = options.requestIdPrefix ?? (options.surface === 'gateway' ? 'gw_' : 'req_');
  const requestId = () => `${prefix}${randomUUID().replace(/-/g, '')}`;
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: requestId,
    clientErrorHandler: clientErrorHandler(options.surface, requestId),
    // Path parameters up to 512 characters reach their route (an agent name of 120 characters, percent-encoded, is up to 360).
    // The organization API answers `/api/v1/x/` as `/api/v1/x` (docs/decisions-services.md "Trailing slash"); the gateway
    // surfaces keep exact paths, since the proxy forwards the path as the client wrote it.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: options.surface === 'org' },
    frameworkErrors: frameworkErrorHandler(options.surface),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    trustProxy: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new NestPinoLogger(options.logger.child({ component: 'nest' })),
    abortOnError: false,
    bodyParser: false,
  });
  if (accessLogEnabled({ ACCESS_LOG: options.accessLog ?? false }, options.logger)) useAccessLog(app.getHttpAdapter().getInstance(), options.logger);
  useJsonBodies(app.getHttpAdapter().getInstance(), { rawBodyPrefix: options.rawBodyPrefix, parsedBodyPrefixes: options.parsedBodyPrefixes });
  useApiResponseHeaders(app.getHttpAdapter().getInstance(), { docs: options.docs !== undefined });
  if (bodyLoggingEnabled({ LOG_BODIES: options.logBodies ?? false }, options.logger)) useBodyLogging(app.getHttpAdapter().getInstance(), options.logger, options.maskLoggedText);
  app.useGlobalFilters(new SurfaceExceptionFilter(options.surface, options.logger, { docs: options.docs !== undefined, refusal: options.notFound }));
  if (options.validation !== false) app.useGlobalPipes(createValidationPipe());
  if (options.docs) setupDocs(app, options.docs);
  return app;
}

function setupDocs(app: INestApplication, docs: NonNullable<HttpAppOptions['docs']>): void {
  const config = new DocumentBuilder()
    .setTitle(docs.title)
    .setDescription(docs.description)
    .setVersion(docs.version)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-SVC-API-Key' }, 'gateway-key')
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });
}
