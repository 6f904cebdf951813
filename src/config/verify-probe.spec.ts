import { hostname } from 'node:os';
import { ConfigError, loadConfig } from './app-config.js';

/** The SMTP probe's settings: defaults, and refusals at start. */
describe('VERIFY_SMTP_PROBE and its settings', () => {
  const base = {
    DATABASE_URL: 'postgres://x@127.0.0.1/db',
    API_KEY_PEPPER: 'a-pepper-of-sixteen-chars',
    ENCRYPTION_KEY: 'ab'.repeat(32),
  };
  const probe = (env: Record<string, string>) => loadConfig({ ...base, ...env }).verifyProbe;

  it('is off by default: port 25, the null sender, 10 probes per MX and minute', () => {
    expect(probe({})).toEqual({
      enabled: false,
      port: 25,
      heloName: hostname(),
      mailFrom: '',
      perMxPerMinute: 10,
      allowPrivate: false,
    });
  });

  it("says PUBLIC_URL's host name with EHLO unless VERIFY_HELO_NAME is set", () => {
    expect(probe({ PUBLIC_URL: 'https://outreach.example.com/x' }).heloName).toBe('outreach.example.com');
    expect(probe({ PUBLIC_URL: 'http://127.0.0.1:3000' }).heloName).toBe(hostname());
    expect(probe({ VERIFY_HELO_NAME: 'mx-check.example.org' }).heloName).toBe('mx-check.example.org');
  });

  it('takes its values', () => {
    expect(
      probe({
        VERIFY_SMTP_PROBE: 'true',
        VERIFY_SMTP_PORT: '2525',
        VERIFY_MAIL_FROM: '<probe@example.com>',
        VERIFY_PROBES_PER_MX_PER_MINUTE: '3',
      }),
    ).toMatchObject({ enabled: true, port: 2525, mailFrom: 'probe@example.com', perMxPerMinute: 3 });
    expect(probe({ VERIFY_MAIL_FROM: '<>' }).mailFrom).toBe('');
  });

  it.each([
    ['VERIFY_SMTP_PROBE', 'yes'],
    ['VERIFY_PROBE_ALLOW_PRIVATE', '1'],
    ['VERIFY_SMTP_PORT', '0'],
    ['VERIFY_SMTP_PORT', '70000'],
    ['VERIFY_PROBES_PER_MX_PER_MINUTE', '0'],
    ['VERIFY_HELO_NAME', 'bad name\r\nRSET'],
    ['VERIFY_MAIL_FROM', 'a@b>\r\nDATA'],
    ['VERIFY_MAIL_FROM', 'not-an-address'],
  ])('refuses %s=%j at start', (name, value) => {
    expect(() => probe({ [name]: value })).toThrow(ConfigError);
  });
});
