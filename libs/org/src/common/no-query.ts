/**
 * The query of a route that takes no query parameter. Declared as `@Query() _query: NoQueryDto`, it
 * makes the ValidationPipe (whitelist, forbidNonWhitelisted) refuse any parameter with 400
 * `VALIDATION_ERROR` naming it in `details.param` (`property org_id should not exist`), as it refuses
 * unknown body fields: the organization comes from the credential, so `?org_id=` of another one is
 * refused, never ignored. This API takes no credential in the query (`api_key` included).
 */
export class NoQueryDto {}
