import { AppConfig, ConfigError, Logger } from '@svc/platform';
import { providerRegistry } from './registry';

/**
 * `<PROVIDER>_BASE_URL` values the proxy will use: one of a built-in provider that is not an
 * http(s) URL stops the start (ConfigError naming it); one of another word belongs to some other
 * program and is ignored, and a URL under a word that is no provider (a misspelling such as
 * `OPENIA_BASE_URL`) is logged, since it changes nothing.
 */
export function checkProviderEnvironment(config: Pick<AppConfig, 'providerEnvProblems' | 'providerBaseUrls'>, logger: Pick<Logger, 'info'>): void {
  const ours = config.providerEnvProblems.filter((problem) => providerRegistry.get(problem.provider)?.id === problem.provider);
  if (ours.length) throw new ConfigError(ours.map(({ variable, message }) => ({ variable, message })));
  const unknown = Object.keys(config.providerBaseUrls).filter((id) => providerRegistry.get(id)?.id !== id);
  if (unknown.length) {
    logger.info({ variables: unknown.map((id) => `${id.toUpperCase()}_BASE_URL`) }, 'ignored: no built-in provider has these ids (GET /v1/models lists them)');
  }
}
