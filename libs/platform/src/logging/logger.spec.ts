import { Writable } from 'node:stream';
import { createLogger } from './logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('redacts credentials in headers and bodies', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', stream);
    logger.info(
      {
        req: {
          headers: {
            authorization: 'Bearer svc_sk_secretvalue',
            'x-svc-api-key': 'svc_sk_other',
            'x-provider-key': 'sk-provider',
            'content-type': 'application/json',
          },
        },
        body: { plaintext_key: 'sk-live', password: 'hunter22', model: 'gpt-4o' },
      },
      'request',
    );
    const text = lines.join('');
    expect(text).not.toMatch(/svc_sk_secretvalue|svc_sk_other|sk-provider|sk-live|hunter22/);
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('application/json');
    expect(text).toContain('gpt-4o');
  });
});
