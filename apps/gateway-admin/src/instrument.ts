// Imported first by main.ts: OpenTelemetry must patch modules before they load.
import { startTelemetry } from '@svc/telemetry';

startTelemetry('gateway-admin');
