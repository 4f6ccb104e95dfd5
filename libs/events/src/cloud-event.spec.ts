import {
  COST_ANOMALY_TYPES,
  costAnomalyEventType,
  EVENT_TYPE_ALIASES,
  EVENT_TYPES,
  EventType,
  isEventType,
  normalizeEventType,
  truncateError,
} from './catalog';
import { createEvent, EVENT_SOURCES, eventUnixTime, GatewayEvent, isGatewayEvent, newEventId } from './cloud-event';
import { SAMPLE_DATA } from './event-fixtures';

const ORG = 'org_123';

function sample<K extends EventType>(type: K): GatewayEvent {
  return createEvent(type, ORG, SAMPLE_DATA[type], EVENT_SOURCES.gateway) as GatewayEvent;
}

describe('createEvent', () => {
  it('builds a CloudEvents 1.0 envelope with an evt_ id, the org as an extension and the data', () => {
    const before = Date.now();
    const event = createEvent('budget.exceeded', ORG, SAMPLE_DATA['budget.exceeded'], EVENT_SOURCES.gateway);
    expect(event).toEqual({
      specversion: '1.0',
      id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
      type: 'budget.exceeded',
      source: '/svc/gateway',
      time: expect.any(String),
      datacontenttype: 'application/json',
      orgid: ORG,
      data: SAMPLE_DATA['budget.exceeded'],
    });
    expect(new Date(event.time).toISOString()).toBe(event.time);
    expect(Date.parse(event.time)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(event.time)).toBeLessThanOrEqual(Date.now());
  });

  it('names every attribute as CloudEvents requires (lower-case alphanumerics)', () => {
    const event = sample('agent.failed');
    for (const key of Object.keys(event)) expect(key).toMatch(/^[a-z0-9]+$/);
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });

  it('gives every event its own id', () => {
    const ids = new Set(Array.from({ length: 500 }, () => newEventId()));
    expect(ids.size).toBe(500);
  });

  it('accepts a fixed id and time (replays)', () => {
    const event = createEvent('budget.warning', ORG, SAMPLE_DATA['budget.warning'], EVENT_SOURCES.orgApi, {
      id: 'evt_fixed',
      time: new Date('2025-02-01T00:00:00Z'),
    });
    expect(event.id).toBe('evt_fixed');
    expect(event.time).toBe('2025-02-01T00:00:00.000Z');
    expect(eventUnixTime(event)).toBe(1738368000);
  });

  it.each(EVENT_TYPES.map((type) => [type]))('accepts the catalog type %s', (type) => {
    const event = sample(type);
    expect(event.type).toBe(type);
    expect(event.data).toEqual(SAMPLE_DATA[type]);
    expect(isGatewayEvent(event)).toBe(true);
    expect(isGatewayEvent(JSON.parse(JSON.stringify(event)))).toBe(true);
  });

  it.each([['cost.exceeded'], ['approval.required'], ['budget.exceded'], ['cost_anomaly.unknown'], ['']])(
    'rejects the non-catalog type "%s"',
    (type) => {
      expect(() => createEvent(type as EventType, ORG, SAMPLE_DATA['budget.exceeded'], EVENT_SOURCES.gateway)).toThrow(
        /Unknown event type/,
      );
    },
  );

  it('rejects an event without organization, source, object data or a proper id', () => {
    const data = SAMPLE_DATA['budget.exceeded'];
    expect(() => createEvent('budget.exceeded', '', data, EVENT_SOURCES.gateway)).toThrow(/organization/);
    expect(() => createEvent('budget.exceeded', ORG, data, '')).toThrow(/source/);
    expect(() => createEvent('budget.exceeded', ORG, null as never, EVENT_SOURCES.gateway)).toThrow(/object/);
    expect(() => createEvent('budget.exceeded', ORG, data, EVENT_SOURCES.gateway, { id: 'abc' })).toThrow(/evt_/);
    expect(() => createEvent('budget.exceeded', ORG, data, EVENT_SOURCES.gateway, { time: 'soon' })).toThrow(/time/);
  });
});

describe('isGatewayEvent', () => {
  it('rejects values that are not catalog envelopes', () => {
    const event = sample('budget.exceeded');
    expect(isGatewayEvent(null)).toBe(false);
    expect(isGatewayEvent('evt_1')).toBe(false);
    expect(isGatewayEvent({ ...event, specversion: '0.3' })).toBe(false);
    expect(isGatewayEvent({ ...event, id: 'abc' })).toBe(false);
    expect(isGatewayEvent({ ...event, type: 'cost.exceeded' })).toBe(false);
    expect(isGatewayEvent({ ...event, orgid: '' })).toBe(false);
    expect(isGatewayEvent({ ...event, time: 'yesterday' })).toBe(false);
    expect(isGatewayEvent({ ...event, data: null })).toBe(false);
    const { source: _source, ...withoutSource } = event;
    expect(isGatewayEvent(withoutSource)).toBe(false);
  });
});

describe('catalog', () => {
  it('lists the ten catalog types, the four anomaly subtypes among them', () => {
    expect(EVENT_TYPES).toHaveLength(10);
    expect(new Set(EVENT_TYPES).size).toBe(10);
    for (const anomaly of COST_ANOMALY_TYPES) expect(EVENT_TYPES).toContain(costAnomalyEventType(anomaly));
  });

  it('maps the aliases of DECISIONS.md to catalog names', () => {
    expect(normalizeEventType('cost.exceeded')).toBe('budget.exceeded');
    expect(normalizeEventType('approval.required')).toBe('approval.requested');
    expect(Object.values(EVENT_TYPE_ALIASES).every(isEventType)).toBe(true);
    for (const type of EVENT_TYPES) expect(normalizeEventType(type)).toBe(type);
  });

  it('rejects unknown names, including object-prototype keys', () => {
    for (const name of ['nope', 'budget', 'toString', '__proto__', 'constructor', 'BUDGET.EXCEEDED']) {
      expect(normalizeEventType(name)).toBeNull();
      expect(isEventType(name)).toBe(false);
    }
    expect(isEventType(42)).toBe(false);
    expect(isEventType('cost.exceeded')).toBe(false);
  });

  it('truncates agent errors to one line of bounded length', () => {
    expect(truncateError('short\nerror')).toBe('short error');
    const long = truncateError('x'.repeat(2_000));
    expect(long).toHaveLength(500);
    expect(long.endsWith('…')).toBe(true);
  });
});
