/**
 * Query parameters whose values are credentials: API keys (`?api_key=`, `?key=` as some providers
 * take them), tokens, passwords, secrets and signatures. Matched case-insensitively on the name.
 */
const SENSITIVE_PARAM = /key|token|secret|passw(?:or)?d|pwd|signature|credential|auth|session|^sig$|^code$/i;

export const REDACTED = '[REDACTED]';

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** True when a query parameter of this name carries a credential. */
export function isSensitiveParam(name: string): boolean {
  return SENSITIVE_PARAM.test(decodeName(name));
}

/**
 * A query string (without the leading `?`) with the values of credential parameters replaced by
 * `[REDACTED]`; every other parameter is kept exactly as written.
 */
export function redactQuery(query: string): string {
  if (!query) return query;
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && isSensitiveParam(name) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * A URL or request target (`/v1/models?api_key=...`) safe to log or export: credential query values
 * are masked, user info (`https://user:pass@host`) is dropped and the fragment removed.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash < 0 ? url : url.slice(0, hash);
  const mark = withoutFragment.indexOf('?');
  const base = (mark < 0 ? withoutFragment : withoutFragment.slice(0, mark)).replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
  return mark < 0 ? base : `${base}?${redactQuery(withoutFragment.slice(mark + 1))}`;
}

/**
 * Incoming-webhook URLs whose path is the credential: a host named `hooks.*` / `webhook*.`
 * (`hooks.slack.com/services/T…/B…/<secret>`, `hooks.zapier.com`, `*.webhook.office.com`) or a path
 * segment `hook(s)` / `webhook(s)` with something after it (Discord's `/api/webhooks/<id>/<token>`,
 * Mattermost and Rocket.Chat `/hooks/<token>`, Teams `/webhookb2/...`).
 */
const SECRET_PATH_HOST = /^(?:hooks?|webhooks?)[.\d-]|\.webhook\.office\.com(?::\d+)?$/i;
const SECRET_PATH_SEGMENT = /\/(?:hooks?|webhooks?|webhookb\d*)\/[^/?#]/i;

/** True when this host and path are those of an incoming webhook whose path is its secret. */
export function carriesSecretInPath(host: string, path: string): boolean {
  return SECRET_PATH_HOST.test(host) || SECRET_PATH_SEGMENT.test(path);
}
