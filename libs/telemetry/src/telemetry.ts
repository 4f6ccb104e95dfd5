import type { NodeSDK } from '@opentelemetry/sdk-node';
import { loadInstrumentations } from './instrumentations';
import { readTelemetrySettings } from './telemetry.config';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, with the
 * instrumentations of `loadInstrumentations`. Without it nothing is loaded, so it costs nothing.
 * Call first, before any other import (instrumentation patches modules as they are required).
 * The runtime calls `stopTelemetry()` during graceful shutdown, which exports the last spans.
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
    instrumentations: loadInstrumentations(),
  });
  sdk.start();
  return true;
}

/** True once `startTelemetry` has started the SDK in this process. */
export function telemetryStarted(): boolean {
  return sdk !== undefined;
}

/** Flushes the spans still buffered and stops the SDK; a no-op when telemetry is off. */
export async function stopTelemetry(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
