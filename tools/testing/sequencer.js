/**
 * Jest's own order (failed first, then slowest first, from its cache; by file size on a clean
 * machine), except that the linear-time scanner specs go first: they time CPU, and run in fresh
 * workers side by side they take ~10 s. Reached later, in workers whose heaps had grown and beside
 * e2e specs that start servers, they took 6 minutes each in a clean-clone CI run (their forced
 * collections and re-measurements paid for it).
 */
const Sequencer = require('@jest/test-sequencer').default;

const TIMED_FIRST = /-linear\.spec\.ts$/;

class TimedFirstSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    return [...ordered.filter((test) => TIMED_FIRST.test(test.path)), ...ordered.filter((test) => !TIMED_FIRST.test(test.path))];
  }
}

module.exports = TimedFirstSequencer;
