import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RunnerEntity, RunnerSessionEntity } from '@svc/domain';
import { RUNNER_SETTINGS, RunnerSettings } from '../runner-settings';
import { ENDED_SESSION_STATES, FINAL_RUNNER_STATES } from '../state-machine';
import { RunnerStreamEvent, RunnerStreamEventName, RunnerStreamHub } from './runner-stream.hub';

/**
 * `GET /gateway/admin/runners/{runner_id}/stream` (SPEC.md "Runner stream"): Server-Sent Events
 * over the hijacked Fastify reply. A stream follows one session (the one asked for, else the
 * active one) or, when the runner has none, the whole runner. It opens with a `state_change`
 * snapshot (`snapshot: true`), then relays `output`, `state_change` and `error` as they happen,
 * sends `heartbeat` every RUNNER_STREAM_HEARTBEAT_MS, and ends with `done` when its session or the
 * runner ends (or the service shuts down). A client that goes away is unsubscribed at once.
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

  follow(request: FastifyRequest, reply: FastifyReply, runner: RunnerEntity, session: RunnerSessionEntity | null): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
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
    if (session && ENDED_SESSION_STATES.includes(session.state)) close(`session_${session.state}`);
    else if (FINAL_RUNNER_STATES.includes(runner.state)) close(`runner_${runner.state}`);
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
