import { DynamicModule, Module, Type } from '@nestjs/common';
import { setFlagsFromString } from 'node:v8';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, closeGracefully, ConfigError, createHttpApp, ErrorSurface, handleShutdown, loadConfig, TextMask, UnroutedRefusal } from '@svc/platform';
import { createRuntime, Runtime, RuntimeModule, RuntimeOptions } from './runtime';

type PortVariable = 'GATEWAY_PORT' | 'ORG_API_PORT' | 'GATEWAY_ADMIN_PORT' | 'RUNNER_CONTROL_PLANE_PORT' | 'WEBHOOK_DISPATCHER_PORT';

export interface HttpSurface {
  /** Label in the start-up banner, e.g. "gateway". */
  label: string;
  module: Type<unknown>;
  port: PortVariable;
  surface: ErrorSurface;
  bodyLimit?: number;
  /** Requests under this prefix get their body unread: the proxy reads it with the org's limit. */
  rawBodyPrefix?: string;
  /** Prefixes under rawBodyPrefix whose JSON bodies are parsed as usual: another module's routes on the port. */
  parsedBodyPrefixes?: readonly string[];
  docs?: { title: string; description: string };
  /** Paths worth printing in the banner, relative to the surface's base URL, each with what it is. */
  highlights?: readonly (readonly [path: string, note: string])[];
  /** false: no route of the surface takes a class-validator DTO, so no ValidationPipe (see HttpAppOptions). */
  validation?: boolean;
  /** The surface's own refusal of a request no route serves, for some paths (see HttpAppOptions.notFound). */
  notFound?: UnroutedRefusal;
}

export interface ServiceDefinition {
  name: string;
  version: string;
  surfaces: HttpSurface[];
  /** Runs the first-start bootstrap (DECISIONS.md "Bootstrap"); true for services that own users. */
  bootstrap?: boolean;
  /**
   * `LOG_BODIES`: masks the personal data in every string of a logged request body, on every
   * surface (HttpAppOptions.maskLoggedText). The apps pass governance's `maskPii`, which this
   * library cannot import (libs/governance depends on it).
   */
  maskLoggedText?: TextMask;
}

export interface RunningService {
  runtime: Runtime;
  apps: NestFastifyApplication[];
  urls: Record<string, string>;
  close(): Promise<void>;
}

@Module({})
class RootModule {}

function rootModule(runtime: Runtime, feature: Type<unknown>): DynamicModule {
  return { module: RootModule, imports: [RuntimeModule.forRoot(runtime), feature] };
}

export interface StartOptions {
  /** Install SIGTERM/SIGINT handlers (default true; tests turn it off and call close()). */
  handleSignals?: boolean;
  /** Print the start-up banner on stdout (default true; in-process tests turn it off). */
  banner?: boolean;
  /** Where log lines go (default stdout). */
  logDestination?: RuntimeOptions['logDestination'];
  /** An open document store shared with other replicas in this process (RuntimeOptions.documentStore). */
  documentStore?: RuntimeOptions['documentStore'];
}

/**
 * V8 settings for a long-running service, set before anything runs (docs/decisions-proxy.md, "Proxy"):
 * - `GC_HEAP_GROWING_PERCENT`: how much V8 lets the old generation grow past its live size before
 *   the next full collection. V8's own factor (up to 4x) lets a busy proxy, whose in-flight requests
 *   are promoted and then die, grow its heap by some 120 MB under load; 30 % keeps it near the live
 *   size at no measurable cost in throughput (docs/benchmarks.md). 0 leaves V8's default.
 * - WebAssembly stays on V8's baseline compiler (Liftoff). The services' one module is undici's HTTP
 *   parser (llhttp), a large state machine: once it ran hot, the optimizing compiler took ~30 MB for
 *   a moment to recompile it, which was the process' peak memory (the gateway's: ~175 MB against
 *   ~147 MB steady). Baseline code parses an answer ~1 µs slower.
 */
function tuneV8(config: Pick<AppConfig, 'GC_HEAP_GROWING_PERCENT'>): void {
  if (config.GC_HEAP_GROWING_PERCENT > 0) setFlagsFromString(`--heap-growing-percent=${config.GC_HEAP_GROWING_PERCENT}`);
  setFlagsFromString('--liftoff-only');
}

/** Boots every HTTP surface of a service on one shared runtime and drains them on SIGTERM. */
export async function startService(
  definition: ServiceDefinition,
  config: AppConfig,
  options: StartOptions = {},
): Promise<RunningService> {
  tuneV8(config);
  const runtime = await createRuntime(definition.name, config, { bootstrap: definition.bootstrap, logDestination: options.logDestination, documentStore: options.documentStore });
  const apps: NestFastifyApplication[] = [];
  const urls: Record<string, string> = {};
  try {
    await startSurfaces(definition, config, runtime, apps, urls);
  } catch (error) {
    // The bootstrap already ran: its account is written before the process exits, and a generated
    // password is shown now, or it would be the only way in and never seen.
    await closeAll(apps, [...runtime.resources].reverse()).catch(() => undefined);
    printBootstrap(runtime, {}, process.stderr);
    throw error;
  }
  const resources = [...runtime.resources].reverse();
  const close =
    options.handleSignals === false
      ? () => closeAll(apps, resources)
      : handleShutdown(apps, resources, runtime.logger, config.SHUTDOWN_TIMEOUT_MS);
  if (options.banner !== false) printBanner(definition, runtime, urls);
  return { runtime, apps, urls, close };
}

async function startSurfaces(definition: ServiceDefinition, config: AppConfig, runtime: Runtime, apps: NestFastifyApplication[], urls: Record<string, string>): Promise<void> {
  for (const surface of definition.surfaces) {
    const app = await createHttpApp(rootModule(runtime, surface.module) as unknown as Type<unknown>, {
      name: `${definition.name}:${surface.label}`,
      surface: surface.surface,
      logger: runtime.logger,
      bodyLimit: surface.bodyLimit,
      rawBodyPrefix: surface.rawBodyPrefix,
      parsedBodyPrefixes: surface.parsedBodyPrefixes,
      logBodies: config.LOG_BODIES,
      maskLoggedText: definition.maskLoggedText,
      accessLog: config.ACCESS_LOG,
      validation: surface.validation,
      notFound: surface.notFound,
      docs: surface.docs && { ...surface.docs, version: definition.version },
    });
    apps.push(app);
    await app.listen({ port: config[surface.port], host: config.HOST }).catch((error: unknown) => {
      throw portProblem(error, surface.port, config[surface.port], config.HOST) ?? error;
    });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config[surface.port];
    urls[surface.label] = `http://localhost:${port}`;
  }
}

/** A port or HOST that cannot be listened on, as the configuration problem it is (no stack trace), naming its variable. */
function portProblem(error: unknown, variable: string, port: number, host: string): ConfigError | undefined {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') return new ConfigError([{ variable, message: `port ${port} is already in use on ${host}: stop what listens there, or set ${variable} to a free port` }]);
  if (code === 'EACCES') return new ConfigError([{ variable, message: `port ${port} needs privileges this process lacks on ${host}: set ${variable} to a port above 1023` }]);
  // HOST names an address this machine does not have, or a family its kernel lacks (`::` with IPv6 disabled).
  if (code === 'EADDRNOTAVAIL') return new ConfigError([{ variable: 'HOST', message: `${host} is not an address of this machine: set HOST to one of its addresses, 0.0.0.0 (every IPv4 address) or :: (every address)` }]);
  if (code === 'EAFNOSUPPORT') return new ConfigError([{ variable: 'HOST', message: `${host} is of an address family this machine does not support (IPv6 disabled?): set HOST to 0.0.0.0` }]);
  return undefined;
}

async function closeAll(apps: NestFastifyApplication[], resources: { close(): unknown }[]): Promise<void> {
  await Promise.allSettled(apps.map((app) => closeGracefully(app)));
  for (const resource of resources) await resource.close();
}

/**
 * The start-up banner on stdout: URLs, docs, stores and the bootstrap result. LOG_LEVEL=silent
 * silences it, except for a generated bootstrap password: shown once, it is the only way in.
 */
export function printBanner(
  definition: ServiceDefinition,
  runtime: Pick<Runtime, 'config' | 'bootstrap' | 'storesInUse'>,
  urls: Record<string, string>,
  out: Pick<NodeJS.WritableStream, 'write'> = process.stdout,
): void {
  const silent = runtime.config.LOG_LEVEL === 'silent';
  const lines: string[] = [];
  if (!silent) {
    lines.push(`${definition.name} ${definition.version} is running`);
    for (const surface of definition.surfaces) {
      const base = urls[surface.label];
      lines.push(`  ${surface.label.padEnd(14)} ${base}${surface.docs ? `   docs: ${base}/docs` : ''}`);
      for (const [path, note] of surface.highlights ?? []) lines.push(`  ${''.padEnd(14)} ${base}${path}   ${note}`);
    }
    for (const [store, detail] of Object.entries(runtime.storesInUse())) lines.push(`  ${store.padEnd(14)} ${detail}`);
  }
  if (lines.length) out.write(`${lines.join('\n')}\n`);
  printBootstrap(runtime, urls, out);
}

/** The bootstrap's lines of the banner: the first organization and, when generated, its Owner's password. */
function printBootstrap(runtime: Pick<Runtime, 'config' | 'bootstrap'>, urls: Record<string, string>, out: Pick<NodeJS.WritableStream, 'write'>): void {
  const boot = runtime.bootstrap;
  if (!boot?.created || (runtime.config.LOG_LEVEL === 'silent' && !boot.generatedPassword)) return;
  const lines = [`  bootstrap      created the first organization (${boot.orgId}) and its Owner ${boot.email}`];
  if (boot.generatedPassword) {
    lines.push(`                 generated password (shown once): ${boot.generatedPassword}`);
    lines.push(`                 log in: POST ${urls['org-api'] ?? ''}/api/v1/auth/login`);
  }
  out.write(`${lines.join('\n')}\n`);
}

/** Entry point of every app: validates config (exit 1 naming the variable), then starts. */
export function runService(definition: ServiceDefinition): void {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  startService(definition, config).catch((error: unknown) => {
    // A refusal that explains itself (configuration, a data directory in use) needs no stack trace.
    const explained = error instanceof ConfigError || (error instanceof Error && error.name === 'DataDirLockedError');
    const detail = explained ? (error as Error).message : error instanceof Error ? error.stack : String(error);
    process.stderr.write(`${definition.name} failed to start: ${detail}\n`);
    process.exit(1);
  });
}
