import { providerNotConfigured } from '../runner-errors';
import type { RunnerProvider } from './runner-provider';

/**
 * The two vendor sandbox providers SPEC.md leaves unnamed. They are accepted as `provider_type`
 * values and refused with 400 `provider_not_configured` until an adapter implements RunnerProvider.
 */
export const VENDOR_PROVIDER_TYPES = ['e2b', 'daytona'] as const;
export const PROVIDER_TYPES = ['fake', 'local', ...VENDOR_PROVIDER_TYPES] as const;
/** Self-hosted machines registered through `POST /byovm/register`; no sandbox provider drives them yet. */
export const BYOVM_PROVIDER_TYPE = 'byovm';

/** The providers this deployment has configured, by `provider_type`. */
export class RunnerProviderRegistry {
  private readonly providers = new Map<string, RunnerProvider>();

  constructor(providers: RunnerProvider[]) {
    for (const provider of providers) this.providers.set(provider.type, provider);
  }

  configured(): string[] {
    return [...this.providers.keys()];
  }

  find(type: string): RunnerProvider | undefined {
    return this.providers.get(type);
  }

  /** The provider, or 400 `provider_not_configured` naming the configured ones. */
  get(type: string): RunnerProvider {
    const provider = this.providers.get(type);
    if (!provider) throw providerNotConfigured(type, this.configured());
    return provider;
  }
}
