/**
 * Jest's own order (slowest first, from its cache), except that the check of the whole run's
 * traffic against the API document runs last, when every other file has recorded its exchanges.
 */
import Sequencer from '@jest/test-sequencer';

const LAST = /test\/openapi\/traffic\.e2e-spec\.ts$/;

export default class TrafficLastSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((t) => !LAST.test(t.path)), ...sorted.filter((t) => LAST.test(t.path))];
  }
}
