import { EventType, normalizeEventType } from '@svc/events';
import { orgErrors } from '../common/org-errors';

/** Catalog names for a subscription list (aliases accepted); 400 naming the unknown ones. */
export function canonicalEventTypes(events: readonly string[], param = 'events'): EventType[] {
  const unknown = events.filter((event) => normalizeEventType(event) === null);
  if (unknown.length) throw orgErrors.validation(`Unknown event types: ${unknown.join(', ')}`, param, { unknown_events: unknown });
  return [...new Set(events.map((event) => normalizeEventType(event) as EventType))];
}
