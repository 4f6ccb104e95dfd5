import { Injectable } from '@nestjs/common';

/** SPEC.md "Runner stream" event names. */
export type RunnerStreamEventName = 'output' | 'state_change' | 'heartbeat' | 'error' | 'done';

export interface RunnerStreamEvent {
  event: Exclude<RunnerStreamEventName, 'heartbeat'>;
  runnerId: string;
  /** The session the event belongs to; null for runner-level events. */
  sessionId: string | null;
  data: Record<string, unknown>;
}

export type RunnerStreamListener = (event: RunnerStreamEvent) => void;

/** Carries published events to other replicas (RunnerStreamRelay over Redis); none in process-only mode. */
export type RunnerStreamForwarder = (event: RunnerStreamEvent) => void;

/**
 * In-process fan-out of a runner's stream events: every client following a runner registers a
 * listener; publishing calls each one (and hands the event to the forwarder, which tells the
 * other replicas). A listener that throws is dropped, so one broken client cannot stop the others.
 * Runners without listeners cost nothing.
 */
@Injectable()
export class RunnerStreamHub {
  private readonly listeners = new Map<string, Set<RunnerStreamListener>>();
  private forwarder: RunnerStreamForwarder | null = null;

  /** Set by the Redis relay: every event published here is also forwarded. */
  forwardTo(forwarder: RunnerStreamForwarder | null): void {
    this.forwarder = forwarder;
  }

  /** Follows a runner; returns the function that stops following (idempotent). */
  subscribe(runnerId: string, listener: RunnerStreamListener): () => void {
    let set = this.listeners.get(runnerId);
    if (!set) {
      set = new Set();
      this.listeners.set(runnerId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(runnerId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(runnerId);
    };
  }

  /** Delivers to this process's followers and forwards to the other replicas. */
  publish(event: RunnerStreamEvent): void {
    this.deliver(event);
    this.forwarder?.(event);
  }

  /** Delivers to this process's followers only (events that came from another replica). */
  deliver(event: RunnerStreamEvent): void {
    const set = this.listeners.get(event.runnerId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        set.delete(listener);
      }
    }
  }

  /** Clients following a runner now (all runners when no id is given). */
  listenerCount(runnerId?: string): number {
    if (runnerId !== undefined) return this.listeners.get(runnerId)?.size ?? 0;
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
