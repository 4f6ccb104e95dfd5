import Redis from 'ioredis';
import mongoose from 'mongoose';
import { loadConfig } from '@svc/platform';
import { bootService } from '@svc/testing';
import { Yaml } from './support/chart';
import { containerEnv, containerOf, SecretValues } from './support/pods';
import { DEFINITIONS } from './support/routes';
import { MINIMAL_VALUES, renderChart, RELEASE } from './support/render';

/**
 * The bundled Redis and MongoDB as the services reach them (the passwords come from the Bitnami
 * charts' Secrets, which the chart never sees), the application user of the bundled MongoDB, and the
 * address the services listen on.
 */
const FULLNAME = `${RELEASE.Name}-svc-gateway`;
const BUNDLED: Yaml = { secrets: { existingSecret: 'svc-credentials' }, redis: { enabled: true }, mongodb: { enabled: true } };
/** Every character that breaks a URL's userinfo pasted as it is. */
const PASSWORD = "p@ss/w:rd%41 +?#[]'é";

/** The environment of the gateway's container, the bundled charts' Secrets holding `password` under every key. */
function gatewayEnv(values: Yaml[], password = PASSWORD): { env: Record<string, string>; refs: string[] } {
  const rendered = renderChart(...values);
  const refs: string[] = [];
  const secrets: SecretValues = (secret, key) => {
    refs.push(`${secret}/${key}`);
    return password;
  };
  return { env: containerEnv(rendered, containerOf(rendered.get('Deployment', `${FULLNAME}-gateway`)), secrets), refs };
}

/** Who the MongoDB driver signs in as, and where, from the service's MONGODB_URI. */
async function mongoLogin(uri: string): Promise<{ username?: string; password?: string; source?: string; db: string; hosts: string[] }> {
  const client = new mongoose.mongo.MongoClient(uri);
  const { credentials, dbName, hosts } = client.options;
  await client.close();
  return { username: credentials?.username, password: credentials?.password, source: credentials?.source, db: dbName, hosts: hosts.map(String) };
}

function redisLogin(url: string): { password?: string; host?: string; port?: number; db?: number } {
  const client = new Redis(url, { lazyConnect: true });
  const { password, host, port, db } = client.options;
  client.disconnect();
  return { password, host, port, db };
}

describe('bundled Redis and MongoDB', () => {
  it('passwords holding @ / : % ? # reach Redis and MongoDB whole: the service encodes them into the URL', async () => {
    const { env } = gatewayEnv([BUNDLED]);
    const config = loadConfig(env);
    expect(redisLogin(config.REDIS_URL as string)).toEqual({ password: PASSWORD, host: `${RELEASE.Name}-redis-master`, port: 6379, db: 0 });
    expect(await mongoLogin(config.MONGODB_URI as string)).toEqual({
      username: 'svc', password: PASSWORD, source: 'svc_gateway', db: 'svc_gateway', hosts: [`${RELEASE.Name}-mongodb:27017`],
    });
  });

  it('the services sign in to MongoDB as the application user, never as root; root only initializes', async () => {
    const { env, refs } = gatewayEnv([BUNDLED]);
    expect(refs.sort()).toEqual([`${RELEASE.Name}-mongodb/mongodb-passwords`, `${RELEASE.Name}-redis/redis-password`]);
    expect(env.MONGODB_URI).toBe(`mongodb://svc@${RELEASE.Name}-mongodb:27017/svc_gateway`);
    // The Bitnami chart creates that user (readWrite on its database) from these values.
    const values = renderChart(BUNDLED).values.mongodb as { auth: Yaml; appDatabase: string };
    expect({ usernames: values.auth.usernames, databases: values.auth.databases }).toEqual({ usernames: ['svc'], databases: [values.appDatabase] });
    // An existing Secret of the operator's holds the same keys.
    expect(gatewayEnv([BUNDLED, { mongodb: { auth: { existingSecret: 'mongo-auth' } } }]).refs).toContain('mongo-auth/mongodb-passwords');
  });

  it('with no application user listed, the services sign in as root (authSource admin), as before', async () => {
    const { env, refs } = gatewayEnv([BUNDLED, { mongodb: { auth: { usernames: [], databases: [] } } }]);
    expect(refs).toContain(`${RELEASE.Name}-mongodb/mongodb-root-password`);
    expect(await mongoLogin(loadConfig(env).MONGODB_URI as string)).toMatchObject({ username: 'root', password: PASSWORD, source: 'admin', db: 'svc_gateway' });
  });

  it('without authentication no password is read', () => {
    const { env, refs } = gatewayEnv([BUNDLED, { redis: { auth: { enabled: false } }, mongodb: { auth: { enabled: false } } }]);
    expect(refs).toEqual([]);
    expect(env).toMatchObject({ REDIS_URL: `redis://${RELEASE.Name}-redis-master:6379/0`, MONGODB_URI: `mongodb://${RELEASE.Name}-mongodb:27017/svc_gateway` });
  });

  it('refuses users the URI or the Bitnami image cannot take', () => {
    const auth = (override: Yaml) => () => renderChart(BUNDLED, { mongodb: { auth: override } });
    expect(auth({ usernames: ['a', 'b'], databases: ['svc_gateway', 'svc_gateway'] })).toThrow(/one user and its database/);
    expect(auth({ usernames: ['svc'], databases: [] })).toThrow(/one user and its database/);
    expect(auth({ databases: ['other'] })).toThrow(/databases\[0\] \(other\) must be mongodb\.appDatabase \(svc_gateway\)/);
    expect(auth({ usernames: ['svc@x'] })).toThrow(/usernames\[0\] "svc@x": only letters/);
    expect(auth({ rootUser: 'ro:ot' })).toThrow(/rootUser "ro:ot": only letters/);
    for (const password of ['a,b', "it's", 'back\\slash']) expect(auth({ passwords: [password] })).toThrow(/comma, quote .* or backslash/);
    expect(auth({ passwords: ['p@ss/w:rd%41 +?#'] })).not.toThrow();
  });
});

describe('the address the services listen on', () => {
  it('is :: by default, which the configuration accepts', () => {
    const rendered = renderChart(MINIMAL_VALUES);
    expect((rendered.get('ConfigMap', `${FULLNAME}-config`).data as Record<string, string>).HOST).toBe('::');
    expect(loadConfig(containerEnv(rendered, containerOf(rendered.get('Deployment', `${FULLNAME}-gateway`)))).HOST).toBe('::');
  });

  it('a service on :: answers over IPv6 and IPv4 alike', async () => {
    const service = await bootService(DEFINITIONS['webhook-dispatcher'], { HOST: '::' });
    try {
      const port = new URL(service.urls['webhook-dispatcher']).port;
      for (const host of ['[::1]', '127.0.0.1']) {
        const response = await fetch(`http://${host}:${port}/health`);
        expect({ host, status: response.status }).toEqual({ host, status: 200 });
      }
    } finally {
      await service.stop();
    }
  });
});
