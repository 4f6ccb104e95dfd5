import { deferNestTimestampFormatters } from './nest-timestamp-formatters';

describe('deferNestTimestampFormatters', () => {
  const RealDateTimeFormat = Intl.DateTimeFormat;
  afterEach(() => Object.assign(Intl, { DateTimeFormat: RealDateTimeFormat }));

  it("loads Nest's log services without building a formatter, builds it on first use, and restores Intl", () => {
    // Counts the formatters built, through the constructor the deferral captures.
    const built: unknown[] = [];
    const Counting = function DateTimeFormat(locales?: string | string[], options?: Intl.DateTimeFormatOptions) {
      built.push(options);
      return new RealDateTimeFormat(locales, options);
    };
    Object.assign(Intl, { DateTimeFormat: Counting });

    deferNestTimestampFormatters();
    expect(Intl.DateTimeFormat).toBe(Counting);
    expect(built).toEqual([]);

    // Jest gives each spec file its own module registry: this is the copy loaded above.
    const { ConsoleLogger } = require('@nestjs/common') as typeof import('@nestjs/common');
    const logger = new (class extends ConsoleLogger {
      timestamp(): string {
        return this.getTimestamp();
      }
    })();
    const printed = logger.timestamp();
    expect(built).toHaveLength(1);
    const expected = new RealDateTimeFormat(undefined, built[0] as Intl.DateTimeFormatOptions).format(Date.now());
    expect(printed.replace(/\d/g, '0')).toBe(expected.replace(/\d/g, '0'));
    logger.timestamp();
    expect(built).toHaveLength(1);
  });

  it('leaves Intl.DateTimeFormat as it found it when Nest is already loaded', () => {
    require('@nestjs/common');
    const before = Intl.DateTimeFormat;
    deferNestTimestampFormatters();
    expect(Intl.DateTimeFormat).toBe(before);
  });
});
