// Imported first by main.ts: OpenTelemetry must patch modules before they load.
import { startTelemetry } from '@svc/telemetry';

// The whole service in one process reports as the service itself (OTEL_SERVICE_NAME overrides).
startTelemetry('svc-gateway');
