import { GatewayError } from '@svc/platform';
import {
  classifyGatewayToken,
  DASHBOARD_TOKEN_HINT,
  header,
  missingGatewayKey,
  parseCredentials,
  repeatedAuthorization,
  resolveProviderKey,
  RETIRED_KEY_PREFIXES,
} from './credentials';

const GW = 'svc_sk_abc123';
const PROVIDER = 'sk-proj-provider-key';

describe('classifyGatewayToken', () => {
  it.each([
    ['svc_sk_abc', 'gateway'],
    ['svc_gw_abc', 'gateway'],
    ['svc-gw-abc', 'gateway'],
    ['svcgw_abc', 'gateway'],
    ['svc_abc', 'gateway'],
    ['svc_rt_abc', 'runner'],
    ['svc_live_abc', 'retired'],
    ['svc_test_abc', 'retired'],
    ['sk-proj-abc', undefined],
    ['sk-ant-api03-abc', undefined],
    ['svcabc', undefined],
  ])('%s → %s', (token, kind) => {
    expect(classifyGatewayToken(token)).toBe(kind);
  });
});

describe('parseCredentials: gateway key locations', () => {
  it('1. X-SVC-API-Key wins over everything', () => {
    const creds = parseCredentials({
      headers: { 'x-svc-api-key': GW, authorization: 'Bearer svc_sk_other' },
      query: { api_key: 'svc_sk_query' },
    });
    expect(creds.gatewayKey).toEqual({ value: GW, location: 'x-svc-api-key', kind: 'gateway' });
  });

  it('2. Authorization: Bearer when the token has a gateway prefix', () => {
    const creds = parseCredentials({ headers: { authorization: `Bearer ${GW}` }, query: { api_key: 'svc_sk_query' } });
    expect(creds.gatewayKey).toEqual({ value: GW, location: 'authorization', kind: 'gateway' });
    expect(creds.providerKeyFromRequest).toBeUndefined();
  });

  it('a non-gateway bearer is not a gateway key but the provider key', () => {
    const creds = parseCredentials({ headers: { authorization: `Bearer ${PROVIDER}` }, query: { api_key: GW } });
    expect(creds.gatewayKey).toEqual({ value: GW, location: 'query', kind: 'gateway' });
    expect(creds.providerKeyFromRequest).toBe(PROVIDER);
    expect(creds.providerKeyLocation).toBe('authorization');
  });

  it('3. api_key query parameter as the fallback', () => {
    expect(parseCredentials({ headers: {}, query: { api_key: GW } }).gatewayKey).toEqual({ value: GW, location: 'query', kind: 'gateway' });
  });

  it('reads the bearer scheme case-insensitively and header names in any case', () => {
    expect(parseCredentials({ headers: { Authorization: `bearer   ${GW}` } }).gatewayKey?.location).toBe('authorization');
    expect(parseCredentials({ headers: { 'X-SVC-API-Key': GW } }).gatewayKey?.location).toBe('x-svc-api-key');
  });

  it('ignores other authorization schemes', () => {
    expect(parseCredentials({ headers: { authorization: `Basic ${GW}` } })).toEqual({});
  });

  it('recognizes runner tokens', () => {
    expect(parseCredentials({ headers: { authorization: 'Bearer svc_rt_123' } }).gatewayKey).toEqual({
      value: 'svc_rt_123',
      location: 'authorization',
      kind: 'runner',
    });
  });

  it('returns no gateway key when none is sent; the caller answers with the documented 401', () => {
    expect(parseCredentials({ headers: { 'content-type': 'application/json' } })).toEqual({});
    const error = missingGatewayKey();
    expect(error.status).toBe(401);
    expect(error.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    expect(error.body.message).toContain('X-SVC-API-Key');
    expect(error.body.message).toContain('Authorization: Bearer');
    expect(error.body.message).toContain('api_key');
  });

  it('adds a hint to the 401 when the Authorization bearer is shaped like a JWT (a dashboard login token), never quoting it', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl';
    const plain = missingGatewayKey().body.message;
    for (const authorization of [`Bearer ${jwt}`, `bearer ${jwt}`, `Bearer sk-provider, Bearer ${jwt}`]) {
      const error = missingGatewayKey({ headers: { authorization } });
      expect(error.status).toBe(401);
      expect(error.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
      expect(error.body.message).toBe(`${plain} ${DASHBOARD_TOKEN_HINT}`);
      expect(error.body.message).not.toContain(jwt);
    }
    for (const authorization of ['Bearer sk-provider-key', 'Bearer a.b', 'Bearer a.b.c.d', 'Basic a.b.c', 'Bearer a+b.c.d']) {
      expect(missingGatewayKey({ headers: { authorization } }).body.message).toBe(plain);
    }
  });

  it('takes the first value of a repeated header', () => {
    expect(header({ 'x-svc-api-key': [GW, 'svc_sk_second'] }, 'x-svc-api-key')).toBe(GW);
  });
});

describe('parseCredentials: retired beta prefixes', () => {
  it.each(RETIRED_KEY_PREFIXES)('rejects %s keys with 401 GW_AUTH_001', (prefix) => {
    for (const headers of [
      { 'x-svc-api-key': `${prefix}abc` },
      { authorization: `Bearer ${prefix}abc` },
    ]) {
      let caught: unknown;
      try {
        parseCredentials({ headers });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      const error = caught as GatewayError;
      expect(error.status).toBe(401);
      expect(error.body).toMatchObject({ code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
      expect(error.body.message).toContain(prefix);
    }
    expect(() => parseCredentials({ headers: {}, query: { api_key: `${prefix}abc` } })).toThrow(GatewayError);
  });

  it('never treats a retired key as a provider key', () => {
    const creds = parseCredentials({ headers: { 'x-svc-api-key': GW, authorization: 'Bearer svc_live_old' } });
    expect(creds.gatewayKey?.value).toBe(GW);
    expect(creds.providerKeyFromRequest).toBeUndefined();
  });
});

describe('parseCredentials: provider key', () => {
  it('refuses a gateway key in X-Provider-Key (it would be sent to the provider): 401 invalid_provider_key', () => {
    for (const key of [GW, 'svc_gw_abc123', 'svc_live_old']) {
      expect(() => parseCredentials({ headers: { 'x-svc-api-key': GW, 'x-provider-key': key } })).toThrow(
        expect.objectContaining({ status: 401, body: expect.objectContaining({ code: 'invalid_provider_key', param: 'X-Provider-Key' }) }),
      );
    }
  });

  it('X-Provider-Key comes first', () => {
    const creds = parseCredentials({ headers: { 'x-svc-api-key': GW, 'x-provider-key': 'pk-1', authorization: 'Bearer pk-2' } });
    expect(creds).toEqual({
      gatewayKey: { value: GW, location: 'x-svc-api-key', kind: 'gateway' },
      providerKeyFromRequest: 'pk-1',
      providerKeyLocation: 'x-provider-key',
    });
  });

  it('then a non-gateway bearer', () => {
    const creds = parseCredentials({ headers: { 'x-svc-api-key': GW, authorization: `Bearer ${PROVIDER}` } });
    expect(creds.providerKeyFromRequest).toBe(PROVIDER);
  });

  it('never a gateway-prefixed bearer', () => {
    const creds = parseCredentials({ headers: { 'x-svc-api-key': GW, authorization: 'Bearer svc_sk_x' } });
    expect(creds.providerKeyFromRequest).toBeUndefined();
  });
});

describe('parseCredentials: both keys as Authorization: Bearer', () => {
  it.each([
    ['gateway key first', [`Bearer ${GW}`, `Bearer ${PROVIDER}`]],
    ['provider key first', [`Bearer ${PROVIDER}`, `Bearer ${GW}`]],
  ])('%s: the gateway-prefixed token is the gateway key, the other the provider key', (_, values) => {
    // Node keeps the first value in `headers`; rawHeaders has both.
    const creds = parseCredentials({ headers: { authorization: values[0] }, authorization: values });
    expect(creds).toEqual({
      gatewayKey: { value: GW, location: 'authorization', kind: 'gateway' },
      providerKeyFromRequest: PROVIDER,
      providerKeyLocation: 'authorization',
    });
  });

  it.each([
    ['gateway key first', `Bearer ${GW}, Bearer ${PROVIDER}`],
    ['provider key first', `Bearer ${PROVIDER},Bearer ${GW}`],
  ])('%s, joined into one value (as fetch and proxies join a repeated header): the same', (_, value) => {
    expect(parseCredentials({ headers: { authorization: value } })).toEqual({
      gatewayKey: { value: GW, location: 'authorization', kind: 'gateway' },
      providerKeyFromRequest: PROVIDER,
      providerKeyLocation: 'authorization',
    });
  });

  it('X-SVC-API-Key still wins, and X-Provider-Key still comes first', () => {
    const values = [`Bearer svc_sk_other`, `Bearer ${PROVIDER}`];
    const creds = parseCredentials({ headers: { 'x-svc-api-key': GW, 'x-provider-key': 'pk-1', authorization: values[0] }, authorization: values });
    expect(creds).toMatchObject({ gatewayKey: { value: GW }, providerKeyFromRequest: 'pk-1' });
  });

  it('two gateway tokens give no provider key', () => {
    const values = [`Bearer ${GW}`, 'Bearer svc_sk_second'];
    expect(parseCredentials({ headers: { authorization: values[0] }, authorization: values })).toEqual({
      gatewayKey: { value: GW, location: 'authorization', kind: 'gateway' },
    });
  });

  it('repeatedAuthorization reads every value from rawHeaders, in any case, only when repeated', () => {
    expect(repeatedAuthorization(['Host', 'x', 'Authorization', 'Bearer a', 'authorization', 'Bearer b'])).toEqual(['Bearer a', 'Bearer b']);
    expect(repeatedAuthorization(['Host', 'x', 'Authorization', 'Bearer a'])).toBeUndefined();
    expect(repeatedAuthorization([])).toBeUndefined();
  });
});

describe('parseCredentials: a dedicated location without a gateway key', () => {
  it.each([
    ['X-SVC-API-Key', { headers: { 'x-svc-api-key': PROVIDER } }, 'X-SVC-API-Key header'],
    ['api_key', { headers: {}, query: { api_key: 'foo_bar' } }, 'api_key query parameter'],
  ])('%s holding an unprefixed value is malformed: 401 GW_AUTH_001 naming the prefixes', (_, input, where) => {
    let error: GatewayError | undefined;
    try {
      parseCredentials(input);
    } catch (caught) {
      error = caught as GatewayError;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error?.status).toBe(401);
    expect(error?.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    expect(error?.body.message).toContain(where);
    expect(error?.body.message).toContain('svc_sk_');
  });
});

describe('parseCredentials: x-api-key on B routes', () => {
  it('is the gateway key when it has a gateway prefix (Anthropic SDK with the gateway key)', () => {
    const creds = parseCredentials({ headers: { 'x-api-key': GW, 'x-provider-key': 'sk-ant-1' }, readXApiKey: true });
    expect(creds.gatewayKey).toEqual({ value: GW, location: 'x-api-key', kind: 'gateway' });
    expect(creds.providerKeyFromRequest).toBe('sk-ant-1');
  });

  it('is the provider key otherwise', () => {
    const creds = parseCredentials({ headers: { 'x-api-key': 'sk-ant-api03-x', 'x-svc-api-key': GW }, readXApiKey: true });
    expect(creds.gatewayKey?.location).toBe('x-svc-api-key');
    expect(creds.providerKeyFromRequest).toBe('sk-ant-api03-x');
    expect(creds.providerKeyLocation).toBe('x-api-key');
  });

  it('ranks after Authorization: Bearer for both keys', () => {
    const creds = parseCredentials({
      headers: { authorization: 'Bearer svc_sk_bearer', 'x-api-key': 'svc_sk_xapi' },
      readXApiKey: true,
    });
    expect(creds.gatewayKey?.value).toBe('svc_sk_bearer');
    const provider = parseCredentials({ headers: { authorization: 'Bearer pk-bearer', 'x-api-key': 'pk-xapi' }, readXApiKey: true });
    expect(provider.providerKeyFromRequest).toBe('pk-bearer');
  });

  it('is ignored on other routes', () => {
    expect(parseCredentials({ headers: { 'x-api-key': GW } })).toEqual({});
  });
});

describe('resolveProviderKey', () => {
  it('uses the request key without touching the store', async () => {
    const storedSecret = jest.fn(async () => 'stored');
    await expect(resolveProviderKey({ provider: 'openai', fromRequest: 'req', storedSecret, envKey: 'env' })).resolves.toEqual({
      key: 'req',
      source: 'request',
    });
    expect(storedSecret).not.toHaveBeenCalled();
  });

  it('then the stored organization secret', async () => {
    await expect(resolveProviderKey({ provider: 'openai', storedSecret: async () => 'stored', envKey: 'env' })).resolves.toEqual({
      key: 'stored',
      source: 'stored_secret',
    });
  });

  it('then the deployment environment key', async () => {
    await expect(resolveProviderKey({ provider: 'openai', storedSecret: async () => undefined, envKey: 'env' })).resolves.toEqual({
      key: 'env',
      source: 'environment',
    });
  });

  it('answers 401 missing_provider_key with a remediation when nothing resolves', async () => {
    const error = await resolveProviderKey({ provider: 'groq', storedSecret: async () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    const gatewayError = error as GatewayError;
    expect(gatewayError.status).toBe(401);
    expect(gatewayError.body).toMatchObject({ type: 'authentication_error', code: 'missing_provider_key', param: null });
    expect(gatewayError.body.message).toContain("'groq'");
    expect(gatewayError.body.remediation).toContain('X-Provider-Key');
    expect(gatewayError.body.remediation).toContain('/gateway/admin/secrets');
    expect(gatewayError.body.remediation).toContain('GROQ_API_KEY');
  });

  it('resolves to undefined for keyless providers when optional', async () => {
    await expect(resolveProviderKey({ provider: 'ollama', optional: true })).resolves.toBeUndefined();
  });
});
