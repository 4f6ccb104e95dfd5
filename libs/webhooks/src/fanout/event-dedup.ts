import type { GatewayEvent } from '@svc/events';
import type { OnceGate } from '../infra/once-gate';

/** Injection token of the process's EventDedup. */
export const EVENT_DEDUP = Symbol('EVENT_DEDUP');

/**
 * SPEC.md "Deduplication": per organization and event type, only the first event within the
 * window is delivered (to every webhook and the team chat); later ones of the same type are
 * dropped until the window, counted from that first event, is over. The claim is owned by the
 * event id, so the same event fanned out again (a retried or recovered job) still goes through.
 */
export class EventDedup {
  constructor(
    private readonly gate: OnceGate,
    private readonly windowMs: number,
    private readonly namespace: string,
  ) {}

  /** True for the first event of its organization and type in the window (or that event again). */
  isFirst(event: GatewayEvent): Promise<boolean> {
    return this.gate.claim(`${this.namespace}:dispatcher:dedup:${event.orgid}:${event.type}`, event.id, this.windowMs);
  }
}
