import Redis from 'ioredis';
import mongoose from 'mongoose';
import { ConfigError, loadConfig } from './app-config';
import { withPassword } from './datastore-url';

/** Every character that breaks a URL's userinfo written as it is, and some that encodings get wrong (space, +, non-ASCII). */
const NASTY = "p@ss/w:rd%41 +?#[]!'()*~é";

/** The password the clients read from a URL, as they parse it: ioredis and the MongoDB driver. */
function redisPassword(url: string): string | undefined {
  const client = new Redis(url, { lazyConnect: true });
  const { password, host, port, db } = client.options;
  client.disconnect();
  expect({ host, port, db }).toEqual({ host: 'redis.example.internal', port: 6379, db: 0 });
  return password;
}
async function mongoCredentials(uri: string): Promise<{ username?: string; password?: string; source?: string; hosts: string[] }> {
  const client = new mongoose.mongo.MongoClient(uri);
  const { credentials, hosts, dbName } = client.options;
  await client.close();
  expect(dbName).toBe('svc_gateway');
  return { username: credentials?.username, password: credentials?.password, source: credentials?.source, hosts: hosts.map(String) };
}

describe('REDIS_PASSWORD and MONGODB_PASSWORD', () => {
  it('reach ioredis and the MongoDB driver exactly, whatever characters the password holds', async () => {
    const config = loadConfig({
      REDIS_URL: 'redis://redis.example.internal:6379/0',
      REDIS_PASSWORD: NASTY,
      MONGODB_URI: 'mongodb://svc@mongodb.example.internal:27017/svc_gateway',
      MONGODB_PASSWORD: NASTY,
    });
    expect(redisPassword(config.REDIS_URL as string)).toBe(NASTY);
    expect(await mongoCredentials(config.MONGODB_URI as string)).toEqual({ username: 'svc', password: NASTY, source: 'svc_gateway', hosts: ['mongodb.example.internal:27017'] });
  });

  it('replace a password the URL holds and keep its user, query and several hosts', async () => {
    expect(withPassword('rediss://default:old@redis.example.internal:6379/0', 'a/b')).toBe('rediss://default:a%2Fb@redis.example.internal:6379/0');
    const uri = withPassword('mongodb://root:old@a.example.internal:27017,b.example.internal:27017/svc_gateway?authSource=admin&replicaSet=rs0', NASTY);
    expect(await mongoCredentials(uri)).toEqual({ username: 'root', password: NASTY, source: 'admin', hosts: ['a.example.internal:27017', 'b.example.internal:27017'] });
  });

  it('a password written into the URL as it is breaks it: what the chart did before', async () => {
    const raw = (password: string) => `mongodb://svc:${password}@mongodb.example.internal:27017/svc_gateway`;
    await expect(mongoCredentials(raw('a@b/c'))).rejects.toThrow();
    expect(() => redisPassword('redis://:50%off@redis.example.internal:6379/0')).toThrow(/URI/);
  });

  it('are refused without their URL, and MONGODB_PASSWORD without a user name in the URI', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.problems.map((p) => `${p.variable}: ${p.message}`);
      }
    };
    expect(problems({ REDIS_PASSWORD: 'x', MONGODB_PASSWORD: 'y' })).toEqual([
      expect.stringMatching(/^REDIS_PASSWORD: is set without REDIS_URL/),
      expect.stringMatching(/^MONGODB_PASSWORD: is set without MONGODB_URI/),
    ]);
    expect(problems({ MONGODB_URI: 'mongodb://mongodb.example.internal/svc', MONGODB_PASSWORD: 'y' })).toEqual([expect.stringMatching(/needs a user name in MONGODB_URI/)]);
    // Empty counts as unset (a Helm value left empty).
    expect(loadConfig({ REDIS_URL: 'redis://h:6379', REDIS_PASSWORD: '' }).REDIS_URL).toBe('redis://h:6379');
  });
});
