import { AppConfig, checkOutboundUrl, HostResolver, OrgApiError, OutboundBlockedError } from '@svc/platform';

/** What to do about the refusals a local test setup meets first, and about a lookup that timed out. */
const REMEDIATION: Partial<Record<OutboundBlockedError['reason'], string>> = {
  http_not_allowed: 'Use https://, or set WEBHOOK_ALLOW_HTTP=true (development only)',
  blocked_address: 'Use a public address, or set OUTBOUND_ALLOW_PRIVATE_NETWORKS=true (development only)',
  lookup_timeout: 'Its name servers did not answer in time; try again later',
};

/**
 * Checks a receiver URL (webhook, team chat) with the outbound-safety rules and returns it
 * normalized. 400 `URL_NOT_ALLOWED` naming the reason: not https (unless WEBHOOK_ALLOW_HTTP),
 * credentials in the URL, a host that does not resolve, does not resolve within
 * WEBHOOK_TIMEOUT_MS (`lookup_timeout`), or resolves to a non-public address (unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS). `resolve`: @svc/platform's `outboundResolver`, which resolves
 * like the dispatcher's deliveries, so a host registers only if a delivery could resolve it.
 */
export async function checkReceiverUrl(url: string, config: AppConfig, resolve: HostResolver, param = 'url'): Promise<string> {
  try {
    const parsed = await checkOutboundUrl(url.trim(), {
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
      allowHttp: config.WEBHOOK_ALLOW_HTTP,
      resolve,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    });
    return parsed.href;
  } catch (error) {
    if (error instanceof OutboundBlockedError) {
      const hint = REMEDIATION[error.reason];
      throw new OrgApiError(400, 'URL_NOT_ALLOWED', hint ? `${error.message}. ${hint}` : error.message, {
        param,
        reason: error.reason,
        ...(error.range ? { range: error.range } : {}),
      });
    }
    throw error;
  }
}
