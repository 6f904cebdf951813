import { SMTP_CONCURRENCY, claimTimes } from './engine.types.js';
import { classifySmtpFailure } from './smtp-outcome.js';

/** Errors shaped as nodemailer 10's smtp-connection reports them. */
const conn = (code: string, message: string) => ({ code, command: 'CONN', message });
const reply = (code: string, command: string, response: string) => ({
  code,
  command,
  response,
  responseCode: Number(response.slice(0, 3)),
  message: `failed: ${response}`,
});

describe('classifySmtpFailure: every nodemailer error shape', () => {
  it.each([
    ['connection refused', conn('ESOCKET', 'connect ECONNREFUSED 127.0.0.1:2525')],
    ['DNS failure', conn('EDNS', 'getaddrinfo ENOTFOUND smtp.example.com')],
    ['TLS failure', conn('ETLS', 'Error initiating TLS')],
    ['connect timeout', { ...conn('ETIMEDOUT', 'Connection timeout'), timeoutType: 'CONNECT_TIMEOUT' }],
    ['greeting timeout', { ...conn('ETIMEDOUT', 'Greeting never received') }],
    ['AUTH failure', reply('EAUTH', 'AUTH PLAIN', '535 5.7.8 Authentication failed')],
    ['4xx to MAIL FROM', reply('EENVELOPE', 'MAIL FROM', '451 4.3.0 try later')],
    ['5xx to MAIL FROM', reply('EENVELOPE', 'MAIL FROM', '553 5.7.1 sender rejected')],
    ['4xx to RCPT TO', reply('EENVELOPE', 'RCPT TO', '450 4.2.1 mailbox busy')],
    ['4xx to the DATA command', reply('EENVELOPE', 'DATA', '451 4.3.0 not now')],
    ['5xx to the DATA command', reply('EENVELOPE', 'DATA', '554 5.5.1 no valid recipients')],
    ['connection reset before DATA was accepted', conn('ECONNECTION', 'Connection closed unexpectedly')],
    ['our deadline while queued or before DATA', { code: 'EABORT', name: 'AbortError', message: 'aborted' }],
    ['unexpected greeting', conn('EPROTOCOL', 'Invalid greeting. response=garbage')],
    ['EHLO refused', reply('EPROTOCOL', 'EHLO', '502 5.5.1 EHLO not supported')],
    ['STARTTLS required but not offered', conn('ETLS', 'No STARTTLS on this server')],
    [
      'REQUIRETLS not supported',
      { code: 'EREQUIRETLS', command: 'MAIL FROM', message: 'REQUIRETLS not supported' },
    ],
    ['credentials missing', { code: 'ENOAUTH', command: 'API', message: 'Missing credentials for "PLAIN"' }],
    ['pooled connection at its message limit', { code: 'EMAXLIMIT', message: 'Resource exhausted' }],
    ['proxy failure', { code: 'EPROXY', message: 'Proxy connection failed' }],
    ['message stream failed before it was handed over', { code: 'ESTREAM', message: 'stream error' }],
  ])('%s → not sent (retried later)', (_what, err) => {
    expect(classifySmtpFailure(err, false).kind).toBe('not_sent');
  });

  it('an explicit 4xx to the end of DATA → not sent', () => {
    expect(classifySmtpFailure(reply('EMESSAGE', 'DATA', '451 4.7.1 greylisted'), true).kind).toBe(
      'not_sent',
    );
    // A 421 that ends the session while the final reply was awaited is that reply.
    expect(classifySmtpFailure(reply('ECONNECTION', 'CONN', '421 4.4.2 closing connection'), true).kind).toBe(
      'not_sent',
    );
  });

  it('5xx to RCPT TO or to the end of DATA → hard bounce', () => {
    expect(classifySmtpFailure(reply('EENVELOPE', 'RCPT TO', '550 5.1.1 unknown user'), false)).toMatchObject(
      {
        kind: 'bounced',
        responseCode: 550,
      },
    );
    expect(classifySmtpFailure(reply('EMESSAGE', 'DATA', '554 5.7.1 spam'), true)).toMatchObject({
      kind: 'bounced',
      responseCode: 554,
    });
  });

  it.each([
    ['connection closed after the message', conn('ECONNECTION', 'Connection closed unexpectedly')],
    ['connection reset after the message', conn('ESOCKET', 'read ECONNRESET')],
    [
      'socket timeout waiting for the final reply',
      { ...conn('ETIMEDOUT', 'Timeout'), timeoutType: 'SOCKET_TIMEOUT' },
    ],
    [
      'our deadline while waiting for the final reply',
      { code: 'EABORT', name: 'AbortError', message: 'aborted' },
    ],
    ['message stream failed while it was being handed over', { code: 'ESTREAM', message: 'stream error' }],
    ['a final reply that is not SMTP', conn('EPROTOCOL', 'Invalid response')],
  ])('%s → outcome unknown (never resent)', (_what, err) => {
    expect(classifySmtpFailure(err, true).kind).toBe('unknown');
  });

  it('inbox marked in error only for AUTH failures and permanent refusals before the message', () => {
    const auth = classifySmtpFailure(reply('EAUTH', 'AUTH PLAIN', '535 5.7.8 Authentication failed'), false);
    expect(auth).toMatchObject({ kind: 'not_sent', inboxError: true });
    const busy = classifySmtpFailure(reply('EENVELOPE', 'MAIL FROM', '451 4.3.0 try later'), false);
    expect(busy).toMatchObject({ kind: 'not_sent', inboxError: false });
  });
});

describe('claim limits', () => {
  it('SMTP concurrency per process stays at most 32', () => {
    expect(SMTP_CONCURRENCY).toBeLessThanOrEqual(32);
  });

  it('no conversation outlives the lease: start window + deadline < lease', () => {
    for (const lease of [3, 6, 60, 600, 3600]) {
      const { deadlineMs, startWithinMs } = claimTimes(lease);
      expect(startWithinMs).toBeGreaterThan(0);
      expect(startWithinMs + deadlineMs).toBeLessThan(lease * 1000);
    }
    expect(claimTimes(600)).toEqual({ deadlineMs: 120_000, startWithinMs: 420_000 });
  });
});
