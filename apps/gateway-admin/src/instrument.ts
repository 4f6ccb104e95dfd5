// Imported first by main.ts: what has to happen before the other modules load. OpenTelemetry
// patches modules as they load; Nest's log services load here with their formatters deferred.
import { deferNestTimestampFormatters } from '@svc/preload';
import { startTelemetry } from '@svc/telemetry';

deferNestTimestampFormatters();
startTelemetry('gateway-admin');
