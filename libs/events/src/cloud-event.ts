import { randomBytes } from 'node:crypto';
import { EventDataMap, EventType, isEventType } from './catalog';

/**
 * A CloudEvents v1.0 envelope (structured JSON mode). The organization travels as the
 * extension attribute `orgid`: CloudEvents extension names are lower-case alphanumerics only.
 */
export interface CloudEvent<T = unknown, K extends string = string> {
  specversion: '1.0';
  /** `evt_` followed by random characters; unique per event, used for deduplication. */
  id: string;
  type: K;
  /** The emitting service, a URI reference such as `/svc/gateway` (see EVENT_SOURCES). */
  source: string;
  /** ISO 8601 timestamp of when the event happened. */
  time: string;
  datacontenttype: 'application/json';
  /** Organization the event belongs to (CloudEvents extension attribute). */
  orgid: string;
  data: T;
}

/** A catalog event: a union discriminated on `type`, each with its own `data` shape. */
export type GatewayEvent<K extends EventType = EventType> = K extends EventType ? CloudEvent<EventDataMap[K], K> : never;

export const CLOUDEVENTS_SPEC_VERSION = '1.0';
export const EVENT_ID_PREFIX = 'evt_';
/** Name of the CloudEvents extension attribute carrying the organization id. */
export const ORG_EXTENSION_ATTRIBUTE = 'orgid';

/** The `source` of each emitting service. */
export const EVENT_SOURCES = Object.freeze({
  gateway: '/svc/gateway',
  gatewayAdmin: '/svc/gateway-admin',
  orgApi: '/svc/org-api',
  runnerControlPlane: '/svc/runner-control-plane',
  webhookDispatcher: '/svc/webhook-dispatcher',
});
export type KnownEventSource = (typeof EVENT_SOURCES)[keyof typeof EVENT_SOURCES];

/** `evt_` + 24 random hex characters (96 bits; safe as a queue job id: no `:`, never an integer). */
export function newEventId(): string {
  return `${EVENT_ID_PREFIX}${randomBytes(12).toString('hex')}`;
}

export interface CreateEventOptions {
  /** Fixed id (replays, tests); a fresh one otherwise. Must start with `evt_`. */
  id?: string;
  /** Event time; now by default. */
  time?: Date | string;
}

/**
 * Builds the envelope for a catalog event. Throws a TypeError for a type outside the catalog
 * (aliases are for subscriptions, never for emitted events), an empty org id or source.
 */
export function createEvent<K extends EventType>(
  type: K,
  orgId: string,
  data: EventDataMap[K],
  source: string,
  options: CreateEventOptions = {},
): CloudEvent<EventDataMap[K], K> {
  if (!isEventType(type)) throw new TypeError(`Unknown event type: ${String(type)}`);
  if (typeof orgId !== 'string' || orgId.length === 0) throw new TypeError('An event needs an organization id');
  if (typeof source !== 'string' || source.length === 0) throw new TypeError('An event needs a source');
  if (data === null || typeof data !== 'object') throw new TypeError('Event data must be an object');
  const id = options.id ?? newEventId();
  if (!id.startsWith(EVENT_ID_PREFIX) || id.length <= EVENT_ID_PREFIX.length) {
    throw new TypeError(`Event ids start with ${EVENT_ID_PREFIX}`);
  }
  const time = options.time === undefined ? new Date() : new Date(options.time);
  if (Number.isNaN(time.getTime())) throw new TypeError('Event time is not a valid date');
  return {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id,
    type,
    source,
    time: time.toISOString(),
    datacontenttype: 'application/json',
    orgid: orgId,
    data,
  };
}

/**
 * Checks the envelope of a value read back from a queue or a store: CloudEvents fields present,
 * `type` in the catalog, `data` an object. It does not validate every `data` field.
 */
export function isGatewayEvent(value: unknown): value is GatewayEvent {
  if (value === null || typeof value !== 'object') return false;
  const event = value as Partial<Record<keyof CloudEvent, unknown>>;
  return (
    event.specversion === CLOUDEVENTS_SPEC_VERSION &&
    typeof event.id === 'string' &&
    event.id.startsWith(EVENT_ID_PREFIX) &&
    isEventType(event.type) &&
    typeof event.source === 'string' &&
    event.source.length > 0 &&
    typeof event.time === 'string' &&
    !Number.isNaN(Date.parse(event.time)) &&
    event.datacontenttype === 'application/json' &&
    typeof event.orgid === 'string' &&
    event.orgid.length > 0 &&
    event.data !== null &&
    typeof event.data === 'object'
  );
}

/** A stored event payload (a delivery record's JSON) read back, or null when it is not a gateway event. */
export function parseGatewayEvent(payload: string): GatewayEvent | null {
  try {
    const parsed: unknown = JSON.parse(payload);
    return isGatewayEvent(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Unix seconds of the event's time: the value of the `X-Webhook-Timestamp` header. */
export function eventUnixTime(event: Pick<CloudEvent, 'time'>): number {
  return Math.floor(Date.parse(event.time) / 1000);
}
