import { Inject, Injectable, Optional } from '@nestjs/common';
import { ChatIntegrationEntity, OrgId, Repositories } from '@svc/domain';
import { APP_CONFIG, AppConfig, HostResolver, OUTBOUND_RESOLVER, outboundResolver } from '@svc/platform';
import { REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import type { SecretCipher } from '@svc/domain';
import { orgErrors } from '../common/org-errors';
import { canonicalEventTypes, type ChatIntegrationDto, checkReceiverUrl } from '@svc/org-resources';

export interface ChatIntegrationView {
  id: string;
  kind: 'slack';
  /** The URL is a credential: only its scheme, host and last four characters are shown. */
  url_hint: string;
  enabled: boolean;
  events: string[];
  last_delivery_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

function view(entity: ChatIntegrationEntity): ChatIntegrationView {
  return {
    id: entity._id,
    kind: entity.kind,
    url_hint: entity.url_hint,
    enabled: entity.enabled,
    events: entity.events,
    last_delivery_at: entity.last_delivery_at ? entity.last_delivery_at.toISOString() : null,
    last_error: entity.last_error,
    created_at: entity.created_at.toISOString(),
    updated_at: entity.updated_at.toISOString(),
  };
}

export function urlHint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}/…${url.slice(-4)}`;
}

/** DECISIONS.md "Team chat": one Slack-compatible incoming-webhook URL per organization, stored encrypted. */
@Injectable()
export class ChatIntegrationService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve: HostResolver = outboundResolver(config),
  ) {}

  async put(orgId: OrgId, input: ChatIntegrationDto): Promise<ChatIntegrationView> {
    const events = canonicalEventTypes(input.events ?? []);
    const url = await checkReceiverUrl(input.url, this.config, this.resolve);
    const entity = await this.repositories.chatIntegrations.put(orgId, {
      url: this.cipher.encrypt(orgId, url),
      url_hint: urlHint(url),
      enabled: input.enabled ?? true,
      events,
    });
    return view(entity);
  }

  async get(orgId: OrgId): Promise<ChatIntegrationView> {
    const entity = await this.repositories.chatIntegrations.get(orgId);
    if (!entity) throw orgErrors.notFound('Chat integration');
    return view(entity);
  }

  async remove(orgId: OrgId): Promise<void> {
    if (!(await this.repositories.chatIntegrations.delete(orgId))) throw orgErrors.notFound('Chat integration');
  }
}
