import { OutboundBlockedError, outboundResolver } from '@svc/platform';
import { MockAgent } from 'undici';
import { DiscoveryError, fetchModelList, FetchOptions } from './model-list-fetch';

/**
 * Redirect handling with private networks refused. The e2e redirector has to listen on 127.0.0.1,
 * so with OUTBOUND_ALLOW_PRIVATE_NETWORKS off the request never leaves (the loopback address is
 * refused first) and the "redirect to a private address" case is never reached there. No real
 * public host is reachable from the tests either, so this unit test uses undici's MockAgent as the
 * dispatcher: a dispatcher double standing in for a public server at a public IP literal (which
 * passes the address checks without DNS), answering 302 to the metadata address.
 */
const PUBLIC = 'http://93.184.216.34';
const METADATA = 'http://169.254.169.254';
const URLS = [`${PUBLIC}/v1/models`, `${PUBLIC}/models`];

describe('fetchModelList redirects (private networks refused)', () => {
  let agent: MockAgent;
  let requests: string[];

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    requests = [];
    agent
      .get(METADATA)
      .intercept({ path: () => true, method: 'GET' })
      .reply(({ path }) => {
        requests.push(`${METADATA}${path}`);
        return { statusCode: 200, data: { data: [{ id: 'stolen' }] } };
      })
      .persist();
  });
  afterEach(() => agent.close());

  // IP literals only: the resolver is never asked.
  const options = (): FetchOptions => ({ allowPrivate: false, timeoutMs: 2_000, maxBytes: 65_536, dispatcher: agent, resolve: outboundResolver({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: false }) });
  const answer = (path: string, statusCode: number, location?: string) =>
    agent
      .get(PUBLIC)
      .intercept({ path, method: 'GET' })
      .reply(() => {
        requests.push(`${PUBLIC}${path}`);
        return { statusCode, data: '', responseOptions: location ? { headers: { location } } : {} };
      });
  const failure = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

  it('does not follow a 302 to the metadata address: one request, a redirect failure', async () => {
    answer('/v1/models', 302, `${METADATA}/latest/meta-data/`);
    const error = await failure(fetchModelList('openai_compatible', URLS, {}, options()));
    expect(error).toBeInstanceOf(DiscoveryError);
    expect(error).toMatchObject({ failure: 'redirect', message: expect.stringMatching(/302 \(redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/\); redirects are not followed/) });
    expect(requests).toEqual([`${PUBLIC}/v1/models`]);
  });

  it('does not follow a redirect after a 404 fallback either (two requests, the second one redirected)', async () => {
    answer('/v1/models', 404);
    answer('/models', 307, `${METADATA}/`);
    const error = await failure(fetchModelList('openai_compatible', URLS, {}, options()));
    expect(error).toMatchObject({ failure: 'redirect' });
    expect(requests).toEqual([`${PUBLIC}/v1/models`, `${PUBLIC}/models`]);
  });

  it('refuses a private destination before any request is made', async () => {
    const error = await failure(fetchModelList('openai_compatible', [`${METADATA}/v1/models`, 'http://[::ffff:169.254.169.254]/v1/models'], {}, options()));
    expect(error).toBeInstanceOf(OutboundBlockedError);
    expect(error).toMatchObject({ reason: 'blocked_address', range: 'metadata' });
    expect(requests).toEqual([]);
  });

  it('reads the list from the public address when it answers 200', async () => {
    agent
      .get(PUBLIC)
      .intercept({ path: '/v1/models', method: 'GET' })
      .reply(200, { data: [{ id: 'model-b' }, { id: 'model-a', owned_by: 'lab' }] });
    await expect(fetchModelList('openai_compatible', URLS, {}, options())).resolves.toEqual({
      url: `${PUBLIC}/v1/models`,
      models: [
        { model_id: 'model-b', owned_by: null, context_window: null },
        { model_id: 'model-a', owned_by: 'lab', context_window: null },
      ],
    });
  });
});
