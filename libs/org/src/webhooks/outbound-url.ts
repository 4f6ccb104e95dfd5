import { AppConfig, checkOutboundUrl, OrgApiError, OutboundBlockedError } from '@svc/platform';

/**
 * Checks a receiver URL (webhook, team chat) with the outbound-safety rules and returns it
 * normalized. 400 `URL_NOT_ALLOWED` naming the reason: not https (unless WEBHOOK_ALLOW_HTTP),
 * credentials in the URL, a host that does not resolve or resolves to a non-public address
 * (unless OUTBOUND_ALLOW_PRIVATE_NETWORKS).
 */
/** What to do about the two refusals a local test setup meets first. */
const REMEDIATION: Partial<Record<OutboundBlockedError['reason'], string>> = {
  http_not_allowed: 'Use https://, or set WEBHOOK_ALLOW_HTTP=true (development only)',
  blocked_address: 'Use a public address, or set OUTBOUND_ALLOW_PRIVATE_NETWORKS=true (development only)',
};

export async function checkReceiverUrl(url: string, config: AppConfig, param = 'url'): Promise<string> {
  try {
    const parsed = await checkOutboundUrl(url.trim(), {
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
      allowHttp: config.WEBHOOK_ALLOW_HTTP,
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
