import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

describe('webhook-dispatcher app', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await bootService(SERVICE);
  });
  afterAll(() => service.stop());

  it('answers GET /health with {status: "ok"} on a real port', async () => {
    const res = await fetch(`${service.urls['webhook-dispatcher']}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
