import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApprovalsService } from '@svc/governance';
import { ApiOrgIdHeader, GatewayError } from '@svc/platform';
import { listModels } from '../providers';
import { OrgProviderRegistry } from '../pipeline/org-registry';
import { ProxyService } from '../pipeline/proxy.service';
import { anthropicModelPage, toModelInfo } from './anthropic-models';
import { APPROVAL_STATUS_RESPONSE, MODEL_ENTRY, MODEL_INFO, MODEL_INFO_PAGE, MODEL_LIST } from './service.openapi';

/**
 * The root list and its entries are also the Anthropic SDK's `models.*` with `baseURL` `{base_url}`
 * (DECISIONS.md), and its older versions and curl send the key as `x-api-key`: read as on the B routes.
 */
const ROOT_LIST_CREDENTIALS = { readXApiKey: true };

/** `GET /v1/models` (SPEC.md): the registry's models, routable by their listed ids. No provider key needed. */
@ApiTags('proxy')
@ApiSecurity('gateway-key')
@ApiOrgIdHeader()
@Controller('v1')
export class ModelsController {
  constructor(
    private readonly proxy: ProxyService,
    private readonly providers: OrgProviderRegistry,
    private readonly approvals: ApprovalsService,
  ) {}

  @Get('models')
  @ApiOperation({ summary: 'List models', description: 'Scope: gateway:read; reads `x-api-key` like the B routes. `{object: "list", data: [{id, object: "model", created: 0, owned_by, description}]}`' })
  @ApiOkResponse({ description: 'Model list in format A', schema: MODEL_LIST })
  async models(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const principal = await this.proxy.authenticate(request, reply, 'gateway:read', ROOT_LIST_CREDENTIALS);
    await reply.send(listModels(await this.providers.registry(principal.orgId)));
  }

  @Get('models/:model')
  @ApiOperation({
    summary: "One model (the OpenAI SDK's models.retrieve())",
    description: 'Scope: gateway:read. The entry of GET /v1/models with that id, `provider/model` ids included (`/v1/models/groq/llama-3.3-70b-versatile`); 404 `model_not_found` otherwise.',
  })
  @ApiOkResponse({ schema: MODEL_ENTRY })
  model(@Param('model') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.retrieve(id, request, reply);
  }

  /** `models/:model` for the `provider/model` ids, whose slash makes them two path segments (not in the OpenAPI document). */
  @Get('models/*')
  @ApiExcludeEndpoint()
  providerModel(@Param('*') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.retrieve(id, request, reply);
  }

  private async retrieve(id: string, request: FastifyRequest, reply: FastifyReply) {
    const principal = await this.proxy.authenticate(request, reply, 'gateway:read', ROOT_LIST_CREDENTIALS);
    await reply.send(listedModel(listModels(await this.providers.registry(principal.orgId)).data, id, 'GET /v1/models lists the models.'));
  }

  @Get(':provider/models/:model')
  @ApiOperation({
    summary: "One model of a provider (the OpenAI SDK's models.retrieve() with baseURL {base_url}/v1/{provider})",
    description:
      "Scope: gateway:read. For a built-in A, B or C provider: the entry of GET /v1/{provider}/models with that id, else 404 `model_not_found`. Below a format-A compatible (D) provider's base the path is forwarded to the provider like any other (the catch-all).",
  })
  @ApiOkResponse({ description: 'A built-in provider\'s model entry', schema: MODEL_ENTRY })
  async providerModelEntry(@Param('provider') provider: string, @Param('model') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const { definition, data } = await this.modelsOf(provider, request, reply);
    await reply.send(listedModel(data, id, `GET /v1/${provider}/models lists the models of ${definition.id}.`));
  }

  @Get('approvals/:approval_id/status')
  @ApiOperation({ summary: 'Poll a HITL approval', description: 'Gateway key of the organization. `{approval_id, status, org_id, model, estimated_cost, retry_after_seconds, created_at}` plus `approved_by`, `approved_at` once approved; 404 `not_found` (param `approval_id`) for an unknown id.' })
  @ApiOkResponse({ schema: APPROVAL_STATUS_RESPONSE })
  async approvalStatus(@Param('approval_id') approvalId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const principal = await this.proxy.authenticate(request, reply, 'gateway:read');
    await reply.send(await this.approvals.status(principal.orgId, approvalId));
  }

  @Get(':provider/models')
  @ApiOperation({ summary: "One provider's models (the OpenAI SDK's models.list() with baseURL {base_url}/v1/{provider})", description: 'Scope: gateway:read.' })
  @ApiOkResponse({ schema: MODEL_LIST })
  async providerModels(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const { data } = await this.modelsOf(provider, request, reply);
    await reply.send({ object: 'list', data });
  }

  @Get(':provider/v1/models')
  @ApiOperation({
    summary: "One provider's models at the SDK-style path (the Anthropic SDK's models.list() with baseURL {base_url}/v1/anthropic)",
    description:
      'Scope: gateway:read; reads `x-api-key` like the B routes. A format-B provider answers in its own list format (`{data: [{type: "model", id, display_name, created_at}], has_more, first_id, last_id}`), ' +
      'paged with `limit` (1-1000, default 20), `after_id` and `before_id` (400 `invalid_request` for a bad value); any other provider in format A.',
  })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'after_id', required: false, type: String })
  @ApiQuery({ name: 'before_id', required: false, type: String })
  @ApiOkResponse({ description: 'A format-B provider\'s page, or a format-A list', schema: { oneOf: [MODEL_INFO_PAGE, MODEL_LIST] } })
  async sdkProviderModels(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const { definition, data } = await this.modelsOf(provider, request, reply, true);
    if (definition.format !== 'anthropic') return reply.send({ object: 'list', data });
    return reply.send(anthropicModelPage(data, request.query));
  }

  @Get(':provider/v1/models/:model')
  @ApiOperation({
    summary: "One model at the SDK-style path (the Anthropic SDK's models.retrieve() with baseURL {base_url}/v1/anthropic)",
    description:
      'Scope: gateway:read; reads `x-api-key` like the B routes. For a built-in A, B or C provider: the entry of GET /v1/{provider}/v1/models with that id (a format-B provider in its own format, `{type: "model", id, display_name, created_at}`), ' +
      'else 404 `model_not_found`. Below a format-A compatible (D) provider\'s base the path is forwarded to the provider like any other (the catch-all).',
  })
  @ApiOkResponse({ description: 'A format-B provider\'s `ModelInfo`, or a format-A entry', schema: { oneOf: [MODEL_INFO, MODEL_ENTRY] } })
  async sdkProviderModel(@Param('provider') provider: string, @Param('model') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const { definition, data } = await this.modelsOf(provider, request, reply, true);
    const found = listedModel(data, id, `GET /v1/${provider}/v1/models lists the models of ${definition.id}.`);
    return reply.send(definition.format === 'anthropic' ? toModelInfo(found) : found);
  }

  private async modelsOf(provider: string, request: FastifyRequest, reply: FastifyReply, readXApiKey = false) {
    const principal = await this.proxy.authenticate(request, reply, 'gateway:read', { readXApiKey });
    const definition = await this.providers.provider(principal.orgId, provider);
    const all = listModels(await this.providers.registry(principal.orgId));
    return { definition, data: all.data.filter((model) => model.owned_by === definition.id) };
  }
}

/** The listed model `id`, or 404 `model_not_found` naming where the list is (`hint`). */
function listedModel<M extends { id: string }>(data: readonly M[], id: string, hint: string): M {
  const found = data.find((model) => model.id === id);
  if (!found) throw new GatewayError(404, { message: `The model '${id}' is not listed. ${hint}`, type: 'not_found_error', code: 'model_not_found', param: 'model' });
  return found;
}
