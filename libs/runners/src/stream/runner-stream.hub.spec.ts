import { RunnerStreamEvent, RunnerStreamHub } from './runner-stream.hub';

describe('RunnerStreamHub', () => {
  const event = (runnerId: string, text = 'x'): RunnerStreamEvent => ({ event: 'output', runnerId, sessionId: 'ses_1', data: { data: text } });

  it('fans a runner’s events out to each of its followers, and only its', () => {
    const hub = new RunnerStreamHub();
    const a: string[] = [];
    const b: string[] = [];
    const other: string[] = [];
    hub.subscribe('run_1', (e) => a.push(String(e.data.data)));
    hub.subscribe('run_1', (e) => b.push(String(e.data.data)));
    hub.subscribe('run_2', (e) => other.push(String(e.data.data)));
    hub.publish(event('run_1', 'hello'));
    expect([a, b, other]).toEqual([['hello'], ['hello'], []]);
    expect(hub.listenerCount('run_1')).toBe(2);
    expect(hub.listenerCount()).toBe(3);
  });

  it('removes a follower on unsubscribe (twice is harmless) and forgets runners without followers', () => {
    const hub = new RunnerStreamHub();
    const seen: string[] = [];
    const stop = hub.subscribe('run_1', (e) => seen.push(String(e.data.data)));
    stop();
    stop();
    hub.publish(event('run_1'));
    expect(seen).toEqual([]);
    expect(hub.listenerCount('run_1')).toBe(0);
  });

  it('drops a follower that throws without disturbing the others', () => {
    const hub = new RunnerStreamHub();
    const seen: string[] = [];
    hub.subscribe('run_1', () => {
      throw new Error('socket gone');
    });
    hub.subscribe('run_1', (e) => seen.push(String(e.data.data)));
    hub.publish(event('run_1', 'one'));
    hub.publish(event('run_1', 'two'));
    expect(seen).toEqual(['one', 'two']);
    expect(hub.listenerCount('run_1')).toBe(1);
  });
});
