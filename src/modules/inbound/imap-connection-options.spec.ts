import { randomUUID } from 'node:crypto';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { registerImapAccessTokenProvider } from '../inboxes/imap-auth.js';
import { sealSettings } from '../inboxes/inbox-credentials.js';
import { imapConnectionOptions } from './imap-connection-options.js';

/** An inbox row with sealed IMAP settings (only the fields the options read). */
function inbox(): Inbox {
  const id = randomUUID();
  const imapSealed = sealSettings(
    { host: 'imap.example.test', port: 993, secure: true, user: 'sam@example.test', password: 'pw-1' },
    id,
    'imap',
  );
  return { id, imapSealed } as Inbox;
}

describe('imapConnectionOptions: one builder, password or OAuth login', () => {
  afterEach(() => registerImapAccessTokenProvider(null));

  it('a password inbox logs in with its sealed user and password', async () => {
    const options = await imapConnectionOptions(inbox(), { openMs: 5000 });
    expect(options).toMatchObject({
      host: 'imap.example.test',
      port: 993,
      secure: true,
      auth: { user: 'sam@example.test', pass: 'pw-1' },
      connectionTimeout: 5000,
      greetingTimeout: 5000,
    });
  });

  it('an inbox the OAuth provider recognises logs in with its access token (asked at every login)', async () => {
    const oauth = inbox();
    let asked = 0;
    registerImapAccessTokenProvider((i) => {
      if (i.id !== oauth.id) return Promise.resolve(null);
      asked += 1;
      return Promise.resolve({ user: 'sam@example.test', accessToken: `token-${asked}` });
    });
    expect((await imapConnectionOptions(oauth, { openMs: 5000 })).auth).toEqual({
      user: 'sam@example.test',
      accessToken: 'token-1',
    });
    expect((await imapConnectionOptions(oauth, { openMs: 5000 })).auth).toEqual({
      user: 'sam@example.test',
      accessToken: 'token-2',
    });
    // Another inbox still uses its password.
    expect((await imapConnectionOptions(inbox(), { openMs: 5000 })).auth).toEqual({
      user: 'sam@example.test',
      pass: 'pw-1',
    });
  });

  it('an inbox without IMAP settings is refused', async () => {
    await expect(
      imapConnectionOptions({ id: randomUUID(), imapSealed: null } as Inbox, { openMs: 1 }),
    ).rejects.toThrow('no IMAP settings');
  });
});
