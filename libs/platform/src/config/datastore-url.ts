/**
 * REDIS_PASSWORD and MONGODB_PASSWORD: a password kept apart from its URL (a Kubernetes Secret, the
 * Helm chart's bundled stores) is put into the URL here, percent-encoded. Written into a URL as it
 * is, a password holding `@`, `/`, `:`, `%`, `?` or `#` breaks the URL; no Helm function encodes the
 * userinfo of a URL exactly (`urlquery` turns a space into `+`), and the chart never sees a
 * password that Kubernetes reads from a Secret.
 */

/** The parts of `scheme://[userinfo@]hosts[/path...]`, or null for anything else. */
function splitAuthority(url: string): { scheme: string; userinfo: string | null; hosts: string; rest: string } | null {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (!match) return null;
  const [, scheme, authority, rest] = match;
  const at = authority.lastIndexOf('@');
  return at < 0
    ? { scheme, userinfo: null, hosts: authority, rest }
    : { scheme, userinfo: authority.slice(0, at), hosts: authority.slice(at + 1), rest };
}

/** The user name a URL carries (as written, percent-encoded), or '' when it has none. */
export function urlUserName(url: string): string {
  const userinfo = splitAuthority(url)?.userinfo ?? '';
  const colon = userinfo.indexOf(':');
  return colon < 0 ? userinfo : userinfo.slice(0, colon);
}

/**
 * The URL with `password` as the password of its userinfo, percent-encoded (RFC 3986: every
 * character but the unreserved ones), replacing any password the URL had; the user name is kept.
 */
export function withPassword(url: string, password: string): string {
  const parts = splitAuthority(url);
  if (!parts) throw new Error('not a URL with an authority (scheme://host)');
  return `${parts.scheme}${urlUserName(url)}:${encodeUserinfo(password)}@${parts.hosts}${parts.rest}`;
}

/** encodeURIComponent, and the five characters it leaves (`!'()*`) encoded too: only A-Z a-z 0-9 - . _ ~ stay. */
function encodeUserinfo(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
