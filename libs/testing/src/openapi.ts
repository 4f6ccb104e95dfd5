/**
 * Checks a real answer against the schema an OpenAPI document (`/docs/json`) gives for it, so an
 * e2e test can tell where the documentation and the service part ways.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenAPI documents are read field by field
export type OpenApiJson = Record<string, any>;

/** The schema behind a `$ref` (components.schemas), or the schema itself. */
export function resolveSchema(doc: OpenApiJson, schema: OpenApiJson | undefined): OpenApiJson | undefined {
  let current = schema;
  while (current?.$ref) current = doc.components.schemas[String(current.$ref).split('/').pop() as string];
  return current;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Where a real answer departs from its documented schema: a required property missing, a value of
 * another type (or null where the schema is not nullable), a value outside an enum, or a property
 * the schema does not declare (on objects that list their properties and allow no others). Walks
 * arrays, nested objects, `$ref`s, `oneOf`/`anyOf` (one alternative must fit), `allOf` and
 * `additionalProperties` schemas. `at` names the value in the departures (`body` by default).
 */
export function schemaDepartures(doc: OpenApiJson, declared: OpenApiJson | undefined, value: unknown, at = 'body'): string[] {
  const schema = resolveSchema(doc, declared);
  if (!schema || (value === null && schema.nullable)) return [];
  const alternatives: OpenApiJson[] | undefined = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    const fits = alternatives.map((alternative) => schemaDepartures(doc, alternative, value, at));
    return fits.some((found) => found.length === 0) ? [] : [`${at}: fits none of the ${alternatives.length} alternatives (${fits.map((found) => found[0]).join('; ')})`];
  }
  if (schema.allOf) return schema.allOf.flatMap((part: OpenApiJson) => schemaDepartures(doc, part, value, at));
  if (schema.type && !(schema.type === typeOf(value) || (schema.type === 'number' && typeOf(value) === 'integer'))) {
    return [`${at}: ${typeOf(value)} where the schema says ${schema.type}`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`];
  if (Array.isArray(value)) return value.flatMap((item, index) => schemaDepartures(doc, schema.items, item, `${at}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const properties: Record<string, OpenApiJson> = schema.properties ?? {};
  const found: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (name in value) found.push(...schemaDepartures(doc, property, (value as OpenApiJson)[name], `${at}.${name}`));
    else if ((schema.required ?? []).includes(name)) found.push(`${at}.${name}: missing`);
  }
  for (const [name, item] of Object.entries(value)) {
    if (name in properties) continue;
    if (typeof schema.additionalProperties === 'object') found.push(...schemaDepartures(doc, schema.additionalProperties, item, `${at}.${name}`));
    else if (schema.additionalProperties !== true && schema.properties) found.push(`${at}.${name}: not in the schema`);
  }
  return found;
}

/** The JSON schema an operation documents for `status`, or for its first 2xx answer. */
export function responseSchema(operation: OpenApiJson | undefined, status?: number): OpenApiJson | undefined {
  const responses = (operation?.responses ?? {}) as Record<string, OpenApiJson>;
  const [, response] = Object.entries(responses).find(([code]) => (status === undefined ? /^2\d\d$/.test(code) : code === String(status))) ?? [];
  return response?.content?.['application/json']?.schema;
}

/** The JSON schema an operation documents for its request body. */
export function requestSchema(operation: OpenApiJson | undefined): OpenApiJson | undefined {
  return operation?.requestBody?.content?.['application/json']?.schema;
}

/** The operations of a document, one `{path, method, operation}` each. */
export function openApiOperations(doc: OpenApiJson): { path: string; method: string; operation: OpenApiJson }[] {
  return Object.entries(doc.paths as Record<string, Record<string, OpenApiJson>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The header parameter `name` of an operation (case-insensitive), if it lists one. */
export function headerParameter(operation: OpenApiJson, name: string): OpenApiJson | undefined {
  return (operation.parameters ?? []).find((parameter: OpenApiJson) => parameter.in === 'header' && String(parameter.name).toLowerCase() === name.toLowerCase());
}

/**
 * What a test compares for one documented call: whether the operation has a schema for the status
 * answered, and where the answer departs from it. Expect `{route, documented: true, departures: []}`.
 */
export function checkAnswer(doc: OpenApiJson, method: string, template: string, status: number, body: unknown): { route: string; documented: boolean; departures: string[] } {
  const schema = responseSchema(doc.paths[template]?.[method.toLowerCase()], status);
  return { route: `${method.toLowerCase()} ${template} ${status}`, documented: Boolean(schema), departures: schema ? schemaDepartures(doc, schema, body) : [] };
}
