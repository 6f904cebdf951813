import { decideReason } from './reason.js';

describe('decideReason', () => {
  it('reads the text first', () => {
    expect(
      decideReason({ status: '5.2.2', smtpCode: 552, diagnostic: 'Mailbox full', action: 'failed' }),
    ).toEqual({
      reason: 'mailbox_full',
      hard: false,
    });
    expect(
      decideReason({ status: '5.7.1', smtpCode: 550, diagnostic: 'User unknown', action: 'failed' }).hard,
    ).toBe(true);
  });
});
