import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

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
