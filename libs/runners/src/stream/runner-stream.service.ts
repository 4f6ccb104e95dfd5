import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RunnerEntity, RunnerSessionEntity } from '@svc/domain';
import { API_CONTENT_SECURITY_POLICY } from '@svc/platform';
import { RUNNER_SETTINGS, RunnerSettings } from '../runner-settings';
import { ENDED_SESSION_STATES, FINAL_RUNNER_STATES } from '../state-machine';
import { RunnerStreamEvent, RunnerStreamEventName, RunnerStreamHub } from './runner-stream.hub';

/** The runner and the followed session as they are now (null when gone). */
export type RunnerStreamReload = () => Promise<{ runner: RunnerEntity | null; session: RunnerSessionEntity | null }>;

/** Why a stream on this runner (and session) has nothing more to send, or null while it may. */
function endReason(runner: RunnerEntity, session: RunnerSessionEntity | null): string | null {
  if (session && ENDED_SESSION_STATES.includes(session.state)) return `session_${session.state}`;
  if (FINAL_RUNNER_STATES.includes(runner.state)) return `runner_${runner.state}`;
  return null;
}

/**
 * `GET /gateway/admin/runners/{runner_id}/stream` (SPEC.md "Runner stream"): Server-Sent Events
 * over the hijacked Fastify reply. A stream follows one session (the one asked for, else the
 * active one) or, when the runner has none, the whole runner. It opens with a `state_change`
 * snapshot (`snapshot: true`), then relays `output`, `state_change` and `error` as they happen,
 * sends `heartbeat` every RUNNER_STREAM_HEARTBEAT_MS, and ends with `done` when its session or the
 * runner ends (or the service shuts down). A client that goes away is unsubscribed at once; one that
 * went away before the stream was set up (while the request was authenticated and the runner read)
 * is never subscribed. The runner and session were read before the stream subscribed: `reload` reads
 * them again once it has, so an end that happened in between still ends the stream with `done`.
 */
@Injectable()
export class RunnerStreamService implements OnModuleDestroy {
  private readonly open = new Set<(reason: string) => void>();

  constructor(
    private readonly hub: RunnerStreamHub,
    @Inject(RUNNER_SETTINGS) private readonly settings: RunnerSettings,
  ) {}

  /** Streams currently open in this process. */
  openCount(): number {
    return this.open.size;
  }

  follow(request: FastifyRequest, reply: FastifyReply, runner: RunnerEntity, session: RunnerSessionEntity | null, reload?: RunnerStreamReload): void {
    reply.hijack();
    const raw = reply.raw;
    // The client left while the request was being authenticated and the runner read: its `close` has
    // already fired and will not again, so subscribing now would keep a listener and a timer forever.
    if (raw.destroyed || request.raw.destroyed) {
      raw.destroy();
      return;
    }
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      // The hijacked reply skips the onSend hook that gives every other answer these two.
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': API_CONTENT_SECURITY_POLICY,
      'X-SVC-Request-ID': String(request.id),
    });
    // HEAD (which Fastify routes to this GET handler): the same headers, no body, and nothing held open.
    if (request.method === 'HEAD') {
      raw.end();
      return;
    }
    const sessionId = session?._id ?? null;
    let sequence = 0;
    let closed = false;
    const send = (event: RunnerStreamEventName, data: Record<string, unknown>) => {
      if (closed || raw.writableEnded || raw.destroyed) return;
      sequence += 1;
      raw.write(`id: ${sequence}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const close = (reason?: string) => {
      if (closed) return;
      if (reason) send('done', { runner_id: runner._id, session_id: sessionId, reason });
      closed = true;
      unsubscribe();
      clearInterval(heartbeat);
      this.open.delete(close);
      if (!raw.writableEnded) raw.end();
    };
    const unsubscribe = this.hub.subscribe(runner._id, (event) => this.relay(event, sessionId, send, close));
    const heartbeat = setInterval(() => send('heartbeat', { runner_id: runner._id, timestamp: new Date().toISOString() }), this.settings.heartbeatMs);
    this.open.add(close);
    raw.on('close', () => close());
    raw.on('error', () => close());

    send('state_change', {
      snapshot: true,
      runner_id: runner._id,
      session_id: sessionId,
      runner_state: runner.state,
      session_state: session?.state ?? null,
      version: runner.version,
      timestamp: new Date().toISOString(),
    });
    const ended = endReason(runner, session);
    if (ended) {
      close(ended);
      return;
    }
    // An end between the read and the subscription published its `done` to nobody: read again now.
    // Ended states are final, so what this read shows stays true whatever was relayed meanwhile.
    reload?.().then(
      (now) => {
        const reason = !closed && now.runner ? endReason(now.runner, session ? now.session : null) : null;
        if (reason) close(reason);
      },
      // The stream goes on as it was; the next transition still reaches it.
      () => undefined,
    );
  }

  /** Ends every open stream with `done` (shutdown: the listener cannot close while they are open). */
  onModuleDestroy(): void {
    for (const close of [...this.open]) close('shutdown');
  }

  private relay(
    event: RunnerStreamEvent,
    sessionId: string | null,
    send: (event: RunnerStreamEventName, data: Record<string, unknown>) => void,
    close: () => void,
  ): void {
    if (event.event === 'done') {
      const ours = event.sessionId === null || (sessionId !== null && event.sessionId === sessionId);
      if (!ours) return;
      send('done', event.data);
      close();
      return;
    }
    if (sessionId !== null && event.sessionId !== null && event.sessionId !== sessionId) return;
    send(event.event, event.data);
  }
}
