import { All, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiHeader, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiOrgIdHeader } from '@svc/platform';
import { ProxyCall, ProxyService } from '../pipeline/proxy.service';
import { noSuchRoute } from '../pipeline/route-refusals';
import { hijackReply, proxyRequestOf } from './proxy-io';
import { CHAT_COMPLETIONS_DOCS, EMBEDDINGS_DOCS, MESSAGES_DOCS } from './proxy.openapi';

const GATEWAY_KEY = ApiHeader({ name: 'X-SVC-API-Key', required: false, description: 'Gateway key (or Authorization: Bearer svc_..., or ?api_key=). Scope gateway:write.' });
const PROVIDER_KEY = ApiHeader({ name: 'X-Provider-Key', required: false, description: 'Upstream provider key; not needed when a secret is stored or the deployment sets <PROVIDER>_API_KEY.' });

/**
 * SPEC.md "Endpoints: Gateway proxy": the routes and their OpenAPI documentation. At run time
 * ProxyRoutes takes these routes over in an `onRequest` hook, before Nest's pipeline; the handlers
 * below serve the same calls when the hook is not installed. Bodies are read by the pipeline
 * itself, with the organization's size limit; the body schemas (proxy.openapi.ts) only document them.
 */
@ApiTags('proxy')
@ApiSecurity('gateway-key')
@ApiOrgIdHeader()
@Controller('v1')
export class ProxyController {
  constructor(private readonly proxy: ProxyService) {}

  private forward(call: ProxyCall, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    return this.proxy.handle(call, proxyRequestOf(request, request.body as Readable | undefined), hijackReply(reply));
  }

  @Post('chat/completions')
  @HttpCode(200)
  @ApiOperation({ summary: 'Chat completions (format A); the provider is detected from the model, or `provider/model`', description: 'Scope: gateway:write. Supports `stream`, `Idempotency-Key`.' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @ApiHeader({ name: 'Idempotency-Key', required: false })
  @CHAT_COMPLETIONS_DOCS
  chat(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'chat' }, request, reply);
  }

  @Post('embeddings')
  @HttpCode(200)
  @ApiOperation({ summary: 'Embeddings (format A)', description: 'Scope: gateway:write.' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @EMBEDDINGS_DOCS
  embeddings(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'embeddings' }, request, reply);
  }

  @Post('messages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Messages (format B)', description: 'Scope: gateway:write. The gateway sends x-api-key and anthropic-version 2023-06-01 upstream.' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @MESSAGES_DOCS
  messages(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'messages', endpointProvider: 'anthropic' }, request, reply);
  }

  @Post(':provider/chat/completions')
  @HttpCode(200)
  @ApiOperation({ summary: 'Chat completions on a named provider (A, C and every D provider)', description: 'Scope: gateway:write.' })
  @ApiParam({ name: 'provider', example: 'openai' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @CHAT_COMPLETIONS_DOCS
  providerChat(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'chat', endpointProvider: provider }, request, reply);
  }

  @Post(':provider/embeddings')
  @HttpCode(200)
  @ApiOperation({ summary: 'Embeddings on a named provider', description: 'Scope: gateway:write.' })
  @ApiParam({ name: 'provider', example: 'openai' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @EMBEDDINGS_DOCS
  providerEmbeddings(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'embeddings', endpointProvider: provider }, request, reply);
  }

  @Post(':provider/messages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Messages on a named format-B provider', description: 'Scope: gateway:write.' })
  @ApiParam({ name: 'provider', example: 'anthropic' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @MESSAGES_DOCS
  providerMessages(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'messages', endpointProvider: provider }, request, reply);
  }

  @Post(':provider/v1/messages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Messages, SDK-style path (Anthropic SDK with baseURL {base_url}/v1/anthropic)', description: 'Scope: gateway:write.' })
  @ApiParam({ name: 'provider', example: 'anthropic' })
  @GATEWAY_KEY
  @PROVIDER_KEY
  @MESSAGES_DOCS
  sdkMessages(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'messages', endpointProvider: provider }, request, reply);
  }

  /**
   * `/v1/{segment}` that no route above serves (`POST /v1/responses`, `GET /v1/files`, `GET /v1/embeddings`):
   * 404 naming the gateway's routes, or 405 for one of them called with another method (ProxyRoutes
   * answers it before Nest; this handler when the hook is not installed).
   */
  @All(['', ':provider'])
  @ApiExcludeEndpoint()
  unrouted(@Req() request: FastifyRequest): never {
    throw noSuchRoute(request.method, request.url);
  }

  /** `ANY /v1/{provider_d}/{path}`: everything below a D provider's base URL (not in the public schema). */
  @All(':provider/*')
  @ApiExcludeEndpoint()
  passthrough(@Param('provider') provider: string, @Param('*') path: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.forward({ kind: 'passthrough', endpointProvider: provider, path }, request, reply);
  }
}

