import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/**
 * 200 with a collection of `item` (SPEC.md "Collections and pagination"): `{items[], total, offset,
 * limit}`, the items described by the item's response class.
 */
export function ApiCollectionResponse(item: Type<unknown>, description?: string) {
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['items', 'total', 'offset', 'limit'],
        properties: {
          items: { type: 'array', items: { $ref: getSchemaPath(item) } },
          total: { type: 'integer', description: 'Items in the whole collection' },
          offset: { type: 'integer', description: 'Items skipped' },
          limit: { type: 'integer', description: 'Page size asked for' },
        },
      },
    }),
  );
}

/**
 * The optional `X-Org-ID` header of the gateway surface's authenticated routes (the admin, runner
 * and `/v1` key routes; `checkOrgHeader` in @svc/auth reads it): a key or a token acts for its own
 * organization, and naming another one is refused. On a controller or on one route.
 */
export function ApiOrgIdHeader() {
  return ApiHeader({
    name: 'X-Org-ID',
    required: false,
    schema: { type: 'string' },
    description:
      "The organization to act for. Optional: the gateway key's (or access token's) organization is used; " +
      'naming another organization is 403 `org_mismatch` (`type` `permission_error`).',
  });
}
