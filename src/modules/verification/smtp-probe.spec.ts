import { rcptAnswerOf } from './smtp-probe.js';

describe('rcptAnswerOf: what an RCPT TO reply says of the mailbox', () => {
  it.each([
    [250, undefined, 'accepted'],
    [251, '2.1.5', 'accepted'],
    [550, '5.1.1', 'no_mailbox'],
    [551, undefined, 'no_mailbox'],
    [553, '5.1.3', 'no_mailbox'],
    [550, undefined, 'no_mailbox'],
    [550, '5.7.1', 'refused'],
    [554, '5.7.1', 'refused'],
    [552, '5.2.2', 'refused'],
    [450, '4.2.0', 'deferred'],
    [421, undefined, 'deferred'],
    [0, undefined, 'deferred'],
  ])('%i %s → %s', (status, enhanced, expected) => {
    expect(rcptAnswerOf(status, enhanced)).toBe(expected);
  });
});
