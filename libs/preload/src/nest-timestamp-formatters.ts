/**
 * Nest's two log services each build an `Intl.DateTimeFormat` when `@nestjs/common` loads, for the
 * timestamps of its console logger. Building one makes ICU read its locale and calendar data: ~8 MB
 * of the `node` binary's pages become resident, and stay so. Our services log through pino, so Nest's
 * console logger never prints and the formatters are never used (docs/benchmarks.md: the gateway's
 * resident memory, 10 MB less idle).
 */

/** A formatter that builds the real one the first time it is used. */
function lazyDateTimeFormat(Real: typeof Intl.DateTimeFormat, locales?: string | string[], options?: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let real: Intl.DateTimeFormat | undefined;
  const resolve = () => (real ??= new Real(locales, options));
  return new Proxy({} as Intl.DateTimeFormat, {
    get(_target, key) {
      const value: unknown = Reflect.get(resolve(), key);
      return typeof value === 'function' ? value.bind(resolve()) : value;
    },
  });
}

/**
 * Loads Nest's log services with formatters that are built on first use; `Intl.DateTimeFormat`
 * itself is replaced only while they load. Call it before anything loads `@nestjs/common` (each
 * app's `instrument.ts`); later, the services are already loaded and this changes nothing.
 */
export function deferNestTimestampFormatters(): void {
  const Real = Intl.DateTimeFormat;
  // Nest's decorators, applied as the services load, read metadata through it.
  require('reflect-metadata');
  const Deferred = function DateTimeFormat(locales?: string | string[], options?: Intl.DateTimeFormatOptions) {
    return lazyDateTimeFormat(Real, locales, options);
  };
  Object.assign(Intl, { DateTimeFormat: Deferred });
  try {
    // Literal paths: the apps' bundler keeps a literal require of a package external.
    require('@nestjs/common/services/console-logger.service');
    require('@nestjs/common/services/logger.service');
  } finally {
    Object.assign(Intl, { DateTimeFormat: Real });
  }
}
