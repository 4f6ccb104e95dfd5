/**
 * The two OpenTelemetry settings read before anything else loads (instrumentation must patch
 * modules before they are required, so this cannot wait for the app's config module).
 * The names are the OpenTelemetry standard ones; the platform config validates them again.
 */
export interface TelemetrySettings {
  endpoint?: string;
  serviceName: string;
}

export function readTelemetrySettings(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): TelemetrySettings {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
  return { endpoint, serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName };
}
