/**
 * docs/trust/README.md (secrets): unsubscribe tokens never appear in logs. A real service process with its
 * access log on, at log level debug, is sent the unsubscribe page and the one-click POST for a
 * genuine token (whose contact does not exist, so the handler's own failure path runs too) and for
 * a forged one; everything the process printed is then searched for the tokens.
 */
import { randomUUID } from 'node:crypto';
import { runMigrations } from '../../src/database/migrate.js';
import { signUnsubscribeToken } from '../../src/modules/unsubscribe/unsubscribe-token.js';
import { asWorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { ensureBuilt, sleep, startService, stopAllServices, type Service } from '../helpers/processes.js';

describe('fault: unsubscribe tokens stay out of the logs', () => {
  let server: Service;

  beforeAll(async () => {
    ensureBuilt();
    await runMigrations();
    server = await startService({ role: 'api', env: { ACCESS_LOG: 'true', LOG_LEVEL: 'debug' } });
  }, 120_000);

  afterAll(async () => {
    await stopAllServices();
  });

  it('neither the access log nor any other line prints the token of /u/{token}', async () => {
    const genuine = signUnsubscribeToken({
      workspaceId: asWorkspaceId(randomUUID()),
      contactId: 987654321,
      campaignId: 123456789,
      enrollmentId: 555555555,
    });
    const forged = `${genuine.slice(0, -4)}AAAA`;
    const statuses: number[] = [];
    for (const token of [genuine, forged]) {
      const url = `${server.url}/u/${token}`;
      statuses.push((await fetch(url)).status);
      statuses.push(
        (
          await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'List-Unsubscribe=One-Click',
          })
        ).status,
      );
      statuses.push((await fetch(`${url}?utm=1`)).status);
    }
    // Every request was answered (none hung or crashed the process) …
    expect(statuses).toHaveLength(6);
    expect(statuses.every((s) => s >= 200 && s < 500)).toBe(true);
    await sleep(300);
    const printed = server.output();
    // … the access log saw them, under the redacted path …
    expect(printed.match(/\/u\/:token/g)?.length ?? 0).toBeGreaterThanOrEqual(6);
    // … and no line holds either token or its signature part.
    for (const token of [genuine, forged]) {
      expect(printed).not.toContain(token);
      expect(printed).not.toContain(token.split('.')[1]);
    }
    expect(server.alive()).toBe(true);
  }, 60_000);
});
