import { ConfigError, loadConfig } from '@svc/platform';
import { checkProviderEnvironment } from './environment';

describe('checkProviderEnvironment', () => {
  const quiet = () => {
    const lines: unknown[] = [];
    return { lines, logger: { info: (fields: unknown) => void lines.push(fields) } };
  };

  it("refuses the start for a built-in provider's <ID>_BASE_URL that is not an http(s) URL, naming it", () => {
    const { logger } = quiet();
    let error: unknown;
    try {
      checkProviderEnvironment(loadConfig({ OPENAI_BASE_URL: 'localhost:9100/v1', MISTRAL_BASE_URL: 'https://ok.example/v1' }), logger);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ variable: 'OPENAI_BASE_URL', message: 'must be a URL starting with http:// or https://' }]);
  });

  it("ignores another program's <WORD>_BASE_URL, and logs a URL under a word that is no provider (a misspelling)", () => {
    const { lines, logger } = quiet();
    expect(() => checkProviderEnvironment(loadConfig({ API_BASE_URL: '/api', OPENIA_BASE_URL: 'http://127.0.0.1:9100/v1', GROQ_BASE_URL: 'http://127.0.0.1:9/v1' }), logger)).not.toThrow();
    expect(lines).toEqual([{ variables: ['OPENIA_BASE_URL'] }]);
  });
});
