import { Inject, Injectable } from '@nestjs/common';
import type { DocumentStore } from '@svc/domain';
import { DOCUMENT_STORE } from '@svc/runtime';
import { PROVIDER_TYPES, RunnerProviderRegistry, VENDOR_PROVIDER_TYPES } from './providers/provider-registry';
import { ProviderAvailability } from './providers/runner-provider';
import { RUNNER_SETTINGS, RunnerSettings } from './runner-settings';

export interface RunnerHealth {
  /** `ok`; `degraded` when a configured provider cannot work; `disabled` when the feature flag is off. */
  status: 'ok' | 'degraded' | 'disabled';
  /** The most capable provider configured (`local` when enabled, else `fake`). */
  provider: string;
  subsystems: { feature_flag: boolean; provider_available: boolean };
  /** Every known provider type: configured or not, available or not. */
  providers: Record<string, { configured: boolean; available: boolean; detail: string }>;
}

export interface PrerequisiteCheck {
  name: string;
  status: 'ok' | 'missing' | 'not_configured';
  required: boolean;
  detail: string;
}

export interface RunnerPrerequisites {
  /** Every required check is ok. */
  ready: boolean;
  /** Checks that failed (required or not); `not_configured` optional providers are not listed. */
  missing: string[];
  checks: PrerequisiteCheck[];
}

/** `/health` and `/prerequisites` of the runner control plane. */
@Injectable()
export class RunnerStatus {
  constructor(
    private readonly providers: RunnerProviderRegistry,
    @Inject(RUNNER_SETTINGS) private readonly settings: RunnerSettings,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  async health(): Promise<RunnerHealth> {
    const providers = await this.providerStates();
    const configured = Object.values(providers).filter((p) => p.configured);
    const allAvailable = configured.length > 0 && configured.every((p) => p.available);
    const provider = this.providers.find('local') ? 'local' : 'fake';
    return {
      status: !this.settings.enabled ? 'disabled' : allAvailable ? 'ok' : 'degraded',
      provider,
      subsystems: { feature_flag: this.settings.enabled, provider_available: providers[provider]?.available ?? false },
      providers,
    };
  }

  async prerequisites(): Promise<RunnerPrerequisites> {
    const providers = await this.providerStates();
    const checks: PrerequisiteCheck[] = [
      {
        name: 'feature_flag',
        status: this.settings.enabled ? 'ok' : 'missing',
        required: true,
        detail: this.settings.enabled ? 'RUNNERS_ENABLED=true' : 'set RUNNERS_ENABLED=true to turn managed runners on',
      },
      {
        name: 'provider:fake',
        status: providers['fake'].available ? 'ok' : 'missing',
        required: true,
        detail: providers['fake'].detail,
      },
      {
        name: 'provider:local',
        status: !providers['local'].configured ? 'not_configured' : providers['local'].available ? 'ok' : 'missing',
        required: false,
        detail: providers['local'].detail,
      },
      ...VENDOR_PROVIDER_TYPES.map(
        (type): PrerequisiteCheck => ({ name: `provider:${type}`, status: 'not_configured', required: false, detail: providers[type].detail }),
      ),
      {
        name: 'document_store',
        status: this.store.kind === 'embedded' || this.store.status() === 'connected' ? 'ok' : 'missing',
        required: true,
        detail: this.store.kind === 'embedded' ? 'embedded file store' : `mongodb ${this.store.status()}`,
      },
    ];
    return {
      ready: checks.every((check) => !check.required || check.status === 'ok'),
      missing: checks.filter((check) => check.status === 'missing').map((check) => check.name),
      checks,
    };
  }

  private async providerStates(): Promise<RunnerHealth['providers']> {
    const states: RunnerHealth['providers'] = {};
    for (const type of PROVIDER_TYPES) {
      const provider = this.providers.find(type);
      if (!provider) {
        const why =
          type === 'local'
            ? 'off (the default): set RUNNER_LOCAL_ENABLED=true to run commands on this host, see docs/runners.md'
            : 'vendor provider: no adapter is configured on this deployment';
        states[type] = { configured: false, available: false, detail: why };
        continue;
      }
      const availability: ProviderAvailability = await provider.availability();
      states[type] = { configured: true, ...availability };
    }
    return states;
  }
}
