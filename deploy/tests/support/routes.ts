/**
 * The routes each app really serves: boots the app's SERVICE definition (as its e2e specs do)
 * and asks its Fastify instance.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import type { ServiceDefinition } from '@svc/runtime';
import { bootService } from '@svc/testing';
import { SERVICE as gateway } from '../../../apps/gateway/src/app.module';
import { SERVICE as gatewayAdmin } from '../../../apps/gateway-admin/src/app.module';
import { SERVICE as orgApi } from '../../../apps/org-api/src/app.module';
import { SERVICE as runnerControlPlane } from '../../../apps/runner-control-plane/src/app.module';
import { SERVICE as webhookDispatcher } from '../../../apps/webhook-dispatcher/src/app.module';
import type { ServiceApp } from './chart';

export const DEFINITIONS: Record<ServiceApp, ServiceDefinition> = {
  gateway,
  'gateway-admin': gatewayAdmin,
  'org-api': orgApi,
  'webhook-dispatcher': webhookDispatcher,
  'runner-control-plane': runnerControlPlane,
};

export interface AppRoute {
  method: string;
  url: string;
}

export interface AppRoutes {
  /** Whether Fastify's router has a GET route for this exact path (pattern). */
  hasGet(url: string): boolean;
  /** Every route, read from printRoutes and each confirmed with hasRoute. */
  routes: AppRoute[];
  /** Status of a GET without credentials, over HTTP, of each of PROBED_PATHS (as a kubelet probe asks). */
  answers: Record<string, number>;
}

/** Paths the chart's probes may call; each is asked of every app while it runs. */
export const PROBED_PATHS = ['/health', '/v1/health'];

/**
 * Rebuilds full paths from `printRoutes({ commonPrefix: false })`: each line is a tree node
 * (`├── `/`└── ` after 4-character indents) whose text extends its parent's path, followed by
 * its methods. Lines that do not describe a route Fastify confirms are dropped.
 */
export function listRoutes(fastify: FastifyInstance): AppRoute[] {
  const tree = fastify.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: AppRoute[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    stack.length = depth;
    const path = `${stack[depth - 1] ?? ''}${match[2]}`;
    stack.push(path);
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) {
      const url = path.startsWith('/') ? path : `/${path}`;
      if (fastify.hasRoute({ method: method as HTTPMethods, url })) routes.push({ method, url });
    }
  }
  return routes;
}

/** Boots the five apps one after the other (free ports, embedded stores), reads their routes, stops them. */
export async function readAllRoutes(): Promise<Record<ServiceApp, AppRoutes>> {
  const result = {} as Record<ServiceApp, AppRoutes>;
  for (const [app, definition] of Object.entries(DEFINITIONS) as [ServiceApp, ServiceDefinition][]) {
    const service = await bootService(definition);
    try {
      const fastify = service.apps[0].getHttpAdapter().getInstance() as FastifyInstance;
      const base = service.urls[definition.surfaces[0].label];
      const answers: Record<string, number> = {};
      for (const path of PROBED_PATHS) answers[path] = (await fetch(`${base}${path}`)).status;
      result[app] = { routes: listRoutes(fastify), hasGet: (url) => fastify.hasRoute({ method: 'GET', url }), answers };
    } finally {
      await service.stop();
    }
  }
  return result;
}

/** Kubernetes `Prefix` matching: element-wise on `/`-separated segments. */
export function prefixMatches(prefix: string, path: string): boolean {
  const p = prefix.replace(/\/+$/, '');
  return path === p || path.startsWith(`${p}/`);
}

/** The Ingress path that serves `path` (the longest matching Prefix), or null. */
export function ingressTarget<T extends { path: string }>(routes: T[], path: string): T | null {
  const candidates = routes.filter((route) => prefixMatches(route.path, path));
  return candidates.sort((a, b) => b.path.length - a.path.length)[0] ?? null;
}
