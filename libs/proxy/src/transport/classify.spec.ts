import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import { Agent, BuildConnector, buildConnector, GatewayError, HostLookupTimeoutError, OutboundBlockedError, undiciErrors } from '@svc/platform';
import { UpstreamFailure } from '../breaker/provider-breaker';
import { upstreamError } from '../pipeline/upstream-errors';
import { classify, readWhole, UpstreamClient, UpstreamRequestInvalid } from './upstream-client';

const coded = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('classify: what undici threw, as the gateway answers it', () => {
  it.each(['ECONNREFUSED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'EPROTO', 'ESERVFAIL', 'EREFUSED'])(
    '%s is a connection failure: 502 upstream_unavailable, counted by the breaker',
    (code) => {
      const classified = classify(coded(code));
      expect(classified).toBeInstanceOf(UpstreamFailure);
      expect(upstreamError(classified, 'lab')).toMatchObject({ status: 502, body: { code: 'upstream_unavailable' } });
    },
  );

  it('a refused address at connect time (also wrapped as a cause) is 502 upstream_address_blocked, not a 500 and not counted', () => {
    const blocked = new OutboundBlockedError('blocked_address', 'resolves to 10.0.0.5 (private range 10.0.0.0/8)', '10.0.0.5', '10.0.0.0/8');
    for (const thrown of [blocked, new Error('connect failed', { cause: blocked })]) {
      const classified = classify(thrown);
      expect(classified).toBe(blocked);
      const answer = upstreamError(classified, 'lab') as GatewayError;
      expect(answer).toBeInstanceOf(GatewayError);
      expect(answer).toMatchObject({ status: 502, body: { type: 'api_error', code: 'upstream_address_blocked' } });
      expect(answer.body.message).toContain('10.0.0.5');
    }
  });

  it('a target host lookup past the connect deadline is 504 upstream_timeout; a name that does not resolve is 502 upstream_unavailable (both counted)', () => {
    const late = new HostLookupTimeoutError('quiet.example', 1_000);
    for (const thrown of [late, new Error('connect failed', { cause: late })]) {
      const classified = classify(thrown);
      expect(classified).toBeInstanceOf(UpstreamFailure);
      expect(upstreamError(classified, 'lab')).toMatchObject({
        status: 504,
        body: { code: 'upstream_timeout', message: 'lab: upstream host lookup timeout (The host quiet.example did not resolve within 1000 ms)' },
      });
    }
    const unknown = classify(new OutboundBlockedError('unresolvable', 'The host gone.example does not resolve'));
    expect(unknown).toBeInstanceOf(UpstreamFailure);
    expect(upstreamError(unknown, 'lab')).toMatchObject({ status: 502, body: { code: 'upstream_unavailable', message: 'lab: upstream connection error (The host gone.example does not resolve)' } });
  });

  it('a header undici will not send is not the provider failing: a provider key 401 invalid_provider_key, another header 502 upstream_request_invalid (neither counted)', () => {
    for (const [header, status, code] of [
      ['authorization', 401, 'invalid_provider_key'],
      ['x-api-key', 401, 'invalid_provider_key'],
      ['x-lab-tenant', 502, 'upstream_request_invalid'],
    ] as const) {
      const classified = classify(new undiciErrors.InvalidArgumentError(`invalid ${header} header`));
      expect(classified).toBeInstanceOf(UpstreamRequestInvalid);
      expect(classified).not.toBeInstanceOf(UpstreamFailure);
      expect(upstreamError(classified, 'lab')).toMatchObject({ status, body: { code } });
    }
  });

  it('an error without a connection code stays what it is (a bug is a 500 with an error id, not a provider failure)', () => {
    const bug = new TypeError('x is not a function');
    expect(classify(bug)).toBe(bug);
    expect(classify(coded('ERR_INVALID_ARG_TYPE'))).not.toBeInstanceOf(UpstreamFailure);
  });
});

/**
 * The kernel's ETIMEDOUT (the operating system gave up: a connect whose SYN was never answered, an
 * established connection whose retransmissions or keep-alive probes went unanswered) is a timeout
 * like the gateway's own deadlines. The kernel cannot be made to time out a loopback connection
 * quickly, so the error is the one net raises (an errno error, code ETIMEDOUT), given to undici by
 * the connector at connect time, or destroying the real connected socket mid-body; it goes through
 * undici's own connect and socket error handling and the UpstreamClient as in production.
 */
describe('a kernel ETIMEDOUT through undici', () => {
  /** The error net raises for ETIMEDOUT (`connect ETIMEDOUT 127.0.0.1:443`, errno -110 on Linux). */
  const etimedout = (syscall: 'connect' | 'read') =>
    Object.assign(new Error(`${syscall} ETIMEDOUT 127.0.0.1:443`), { errno: -osConstants.errno.ETIMEDOUT, code: 'ETIMEDOUT', syscall });
  const deadlines = { connectTimeoutMs: 5_000, firstByteTimeoutMs: 5_000, totalTimeoutMs: 10_000 };
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // A whole answer's headers and half its body, then nothing (the test breaks the connection).
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"id":"chatcmpl-half",');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const request = () => ({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('at connect time: 504 upstream_timeout, counted by the breaker', async () => {
    const client = new UpstreamClient(deadlines, new Agent({ connect: (_options, callback) => process.nextTick(callback, etimedout('connect'), null) }));
    const failure = await client.sendBuffered(request()).catch((error: unknown) => error);
    await client.close();
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(upstreamError(failure, 'lab')).toMatchObject({
      status: 504,
      body: { type: 'api_error', code: 'upstream_timeout', message: 'lab: upstream connect timeout (ETIMEDOUT: the operating system gave up)' },
    });
  });

  it('on an established connection, mid-body: 504 upstream_timeout, counted by the breaker', async () => {
    const sockets: Socket[] = [];
    const base = buildConnector({});
    const connect: BuildConnector.connector = (options, callback) =>
      base(options, (...args) => {
        if (args[1]) sockets.push(args[1] as Socket);
        callback(...args);
      });
    const client = new UpstreamClient(deadlines, new Agent({ connect }));
    const opened = await client.open(request());
    expect(opened.status).toBe(200);
    const body = readWhole(opened).catch((error: unknown) => error);
    sockets[0].destroy(etimedout('read'));
    const failure = await body;
    await client.close();
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(upstreamError(failure, 'lab')).toMatchObject({
      status: 504,
      body: { type: 'api_error', code: 'upstream_timeout', message: 'lab: upstream connection timeout (ETIMEDOUT: the operating system gave up)' },
    });
  });
});
