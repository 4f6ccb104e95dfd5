/**
 * Counter key names. Per-organization keys carry the organization in a hash tag (`{org_...}`) so
 * that one request's keys share a Redis Cluster slot except the three cross-organization ones
 * (busiest orgs, today's spend and daily budgets), which need a single Redis node or a
 * Sentinel setup (docs/governance.md).
 */
export class CounterKeys {
  constructor(private readonly prefix = 'gov') {}

  private org(orgId: string): string {
    return `${this.prefix}:{${orgId}}`;
  }

  quota(orgId: string, day: string): string {
    return `${this.org(orgId)}:quota:${day}`;
  }

  rpm(orgId: string, minute: number): string {
    return `${this.org(orgId)}:rpm:${minute}`;
  }

  rpmPerKey(orgId: string, minute: number): string {
    return `${this.org(orgId)}:rpmk:${minute}`;
  }

  day(orgId: string, day: string): string {
    return `${this.org(orgId)}:day:${day}`;
  }

  month(orgId: string, month: string): string {
    return `${this.org(orgId)}:month:${month}`;
  }

  node(orgId: string, nodeId: string, period: string): string {
    return `${this.org(orgId)}:node:${nodeId}:${period}`;
  }

  session(orgId: string, sessionId: string): string {
    return `${this.org(orgId)}:session:${sessionId}`;
  }

  /** Thresholds already fired for an accumulator this period. */
  warned(accumulatorKey: string): string {
    return `${accumulatorKey}:w`;
  }

  settled(orgId: string, reservationId: string): string {
    return `${this.org(orgId)}:settled:${reservationId}`;
  }

  released(orgId: string, reservationId: string): string {
    return `${this.org(orgId)}:released:${reservationId}`;
  }

  /**
   * The marker of this Redis' counters (no TTL): written once counters are in use, so its absence
   * means Redis lost its data (counter-epoch.ts). Its value names the epoch that wrote it.
   */
  epoch(): string {
    return `${this.prefix}:epoch`;
  }

  /** Held (SET NX, with a TTL) by the one replica reseeding the counters after a loss. */
  epochLock(): string {
    return `${this.prefix}:epoch:lock`;
  }

  /** An organization's counters were reseeded in this epoch (a resumed reseed skips it). */
  reseeded(orgId: string, epoch: string): string {
    return `${this.org(orgId)}:reseeded:${epoch}`;
  }

  /** Today's spend of all organizations was reseeded in this epoch. */
  reseededToday(epoch: string): string {
    return `${this.prefix}:reseeded:${epoch}`;
  }

  busiest(minute: number): string {
    return `${this.prefix}:busiest:${minute}`;
  }

  today(day: string): string {
    return `${this.prefix}:today:${day}`;
  }

  budgets(day: string): string {
    return `${this.prefix}:budgets:${day}`;
  }
}
