import jwt from 'jsonwebtoken';
import { InvalidTokenError, TokenService } from './tokens';

const settings = { secret: 'x'.repeat(40), issuer: 'svc-org-api', audience: 'svc-gateway' };
const service = new TokenService(settings);
const user = { id: 'usr_1', org_id: 'org_1', role: 'Admin' as const, email: 'a@example.com' };

describe('TokenService', () => {
  it('issues access tokens of 30 minutes with iss, aud, typ and jti', () => {
    const { token, claims } = service.issueAccess(user);
    expect(claims).toMatchObject({ sub: 'usr_1', org_id: 'org_1', org_role: 'Admin', typ: 'access', iss: 'svc-org-api', aud: 'svc-gateway' });
    expect(claims.exp - claims.iat).toBe(1800);
    expect(service.verify(token, 'access').jti).toBe(claims.jti);
  });

  it('issues refresh tokens of 7 days in a family', () => {
    const { token, claims } = service.issueRefresh(user, 'fam_1');
    expect(claims.exp - claims.iat).toBe(7 * 24 * 3600);
    expect(service.verify(token, 'refresh').fam).toBe('fam_1');
  });

  it('refuses a refresh token used as an access token, and the reverse', () => {
    expect(() => service.verify(service.issueRefresh(user).token, 'access')).toThrow(InvalidTokenError);
    expect(() => service.verify(service.issueAccess(user).token, 'refresh')).toThrow(InvalidTokenError);
    expect(() => service.verify(service.issueRefresh(user).token, 'access')).toThrow('Not an access token');
    expect(() => service.verify(service.issueAccess(user).token, 'refresh')).toThrow('Not a refresh token');
  });

  it.each([
    ['alg none', jwt.sign({ org_id: 'org_1', typ: 'access' }, '', { algorithm: 'none', subject: 'u', issuer: settings.issuer, audience: settings.audience, jwtid: 'j' })],
    ['another algorithm', jwt.sign({ org_id: 'org_1', typ: 'access' }, settings.secret, { algorithm: 'HS512', subject: 'u', issuer: settings.issuer, audience: settings.audience, jwtid: 'j' })],
    ['wrong audience', jwt.sign({ org_id: 'org_1', typ: 'access' }, settings.secret, { algorithm: 'HS256', subject: 'u', issuer: settings.issuer, audience: 'other', jwtid: 'j' })],
    ['wrong issuer', jwt.sign({ org_id: 'org_1', typ: 'access' }, settings.secret, { algorithm: 'HS256', subject: 'u', issuer: 'other', audience: settings.audience, jwtid: 'j' })],
    ['expired', jwt.sign({ org_id: 'org_1', typ: 'access', exp: Math.floor(Date.now() / 1000) - 10 }, settings.secret, { algorithm: 'HS256', subject: 'u', issuer: settings.issuer, audience: settings.audience, jwtid: 'j' })],
    ['wrong secret', jwt.sign({ org_id: 'org_1', typ: 'access' }, 'y'.repeat(40), { algorithm: 'HS256', subject: 'u', issuer: settings.issuer, audience: settings.audience, jwtid: 'j' })],
    ['garbage', 'not.a.jwt'],
  ])('refuses %s', (_name, token) => {
    expect(() => service.verify(token, 'access')).toThrow(InvalidTokenError);
  });
});
