import type { NodeSDK } from '@opentelemetry/sdk-node';
import { readTelemetrySettings } from './telemetry.config';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 * Without it nothing is loaded, so it costs nothing. Call first, before any other import.
 */
export function startTelemetry(defaultServiceName: string): boolean {
  const settings = readTelemetrySettings(defaultServiceName);
  if (!settings.endpoint || sdk) return Boolean(sdk);
  // Loaded lazily so that a process without an endpoint never pays for the SDK.
  const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  sdk = new Sdk({
    serviceName: settings.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces` }),
  });
  sdk.start();
  const stop = () => void sdk?.shutdown().catch(() => undefined);
  process.once('beforeExit', stop);
  return true;
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
