/**
 * Method and path pairs below `/v1/admin` that no gateway admin route serves: each is a 404
 * `not_found` naming the admin routes, on the gateway admin alone and beside the proxy alike.
 */
export const UNSERVED_V1_ADMIN_CALLS: readonly (readonly [method: string, path: string])[] = [
  ['DELETE', '/v1/admin/webhooks'],
  ['PUT', '/v1/admin/api-keys'],
  ['GET', '/v1/admin/api-keys/key_1'],
  ['POST', '/v1/admin/webhooks/wh_1/deliveries'],
  ['GET', '/v1/admin/not-a-route'],
  ['GET', '/v1/admin'],
];
