import { budgetPeriod } from './budget-period';

describe('budgetPeriod', () => {
  const now = new Date('2030-03-13T10:30:00Z'); // a Wednesday

  it('is the UTC day, the ISO week from Monday, or the calendar month containing now', () => {
    expect(budgetPeriod('daily', now)).toEqual({ start: new Date('2030-03-13T00:00:00Z'), end: new Date('2030-03-14T00:00:00Z') });
    expect(budgetPeriod('weekly', now)).toEqual({ start: new Date('2030-03-11T00:00:00Z'), end: new Date('2030-03-18T00:00:00Z') });
    expect(budgetPeriod('monthly', now)).toEqual({ start: new Date('2030-03-01T00:00:00Z'), end: new Date('2030-04-01T00:00:00Z') });
  });

  it('starts a week on Monday even on Sunday, and rolls months over the year end', () => {
    expect(budgetPeriod('weekly', new Date('2030-03-17T23:59:59Z')).start).toEqual(new Date('2030-03-11T00:00:00Z'));
    expect(budgetPeriod('weekly', new Date('2030-03-18T00:00:00Z')).start).toEqual(new Date('2030-03-18T00:00:00Z'));
    expect(budgetPeriod('monthly', new Date('2030-12-31T12:00:00Z')).end).toEqual(new Date('2031-01-01T00:00:00Z'));
  });
});
