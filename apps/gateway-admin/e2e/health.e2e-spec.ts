import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

describe('gateway-admin app', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await bootService(SERVICE);
  });
  afterAll(() => service.stop());

  it('answers GET /health with {status: "ok"} on a real port', async () => {
    const res = await fetch(`${service.urls['gateway-admin']}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
