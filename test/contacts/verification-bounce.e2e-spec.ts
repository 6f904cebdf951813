/**
 * A hard bounce is stronger evidence than DNS (CONTRACT §24): the real engine sends to a contact whose
 * domain checks out (`valid`), a real SMTP server refuses the recipient (550), the bounce makes the
 * verdict `invalid` / `mailbox_unknown`, and no later check (the verify route, a queued re-check, the
 * background pass) turns it back into `valid`; the migration that added the marker marks the contacts
 * an earlier hard bounce made invalid. DNS from a local server (test/helpers/dns-server.ts).
 */
import { randomUUID } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DataSource } from 'typeorm';
import { BouncedVerdict1800740000000 } from '../../src/database/migrations/1800740000000-BouncedVerdict.js';
import { api, bootAppWithDns, FAST_SENDING, type TestTenant } from '../helpers/app.js';
import { queries } from '../helpers/db.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedEnrollment } from '../helpers/seed.js';
import { verdictReader } from '../helpers/verification.js';
import { waitFor } from '../helpers/wait.js';

const ENV = { ...FAST_SENDING, VERIFY_ADDRESSES: 'true' };

describe('a hard bounce outweighs a later check (real engine, SMTP and DNS)', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let dns: DnsServer;
  let sink: SmtpSink;
  let t: TestTenant;
  let close: () => Promise<void>;
  const run = randomUUID().slice(0, 8);
  const domain = `bounce-${run}.test`;
  const { q, one } = queries(() => db);

  beforeAll(async () => {
    dns = await startDnsServer();
    dns.add(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 10 });
    sink = await startSmtpSink({ rejectRecipient: (a) => (a.startsWith('gone@') ? 550 : undefined) });
    ({ app, db, t, close } = await bootAppWithDns(dns, ENV));
  });
  afterAll(async () => {
    await close();
    await sink.close();
  });

  const { verificationOf, checked } = verdictReader(
    () => app,
    () => t.token,
  );

  it('invalid / mailbox_unknown after the bounce stays so through the verify route and re-checks', async () => {
    const created = await api(app, t.token)
      .post('/contacts')
      .send({ email: `gone@${domain}`, first_name: 'Gone' });
    expect(created.status).toBe(200);
    const id = created.body.data.id as number;
    // DNS says nothing against it: the engine's gate lets the first step go.
    expect(await checked(id)).toMatchObject({ status: 'valid', reasons: [] });

    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, id);
    await waitFor(
      async () =>
        (
          await one<{ stop_reason: string | null }>('SELECT stop_reason FROM enrollments WHERE id = $1', [
            enrollmentId,
          ])
        ).stop_reason === 'bounced',
      'enrollment stopped bounced',
    );
    const bounced = await verificationOf(id);
    expect(bounced).toMatchObject({ status: 'invalid', reasons: ['mailbox_unknown'], suggestion: null });

    // The route answers the bounce's verdict, not DNS's.
    const verified = await api(app, t.token).post(`/contacts/${id}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.data.verification).toEqual(bounced);

    // A re-check asked for by id or by filter does not queue it; nothing in the background changes it.
    const byId = await api(app, t.token)
      .post('/contacts/verify')
      .send({ contact_ids: [id] });
    expect(byId.status).toBe(202);
    expect(byId.body.data).toEqual({ queued: 0 });
    const byFilter = await api(app, t.token).post('/contacts/verify').send({ verification: 'invalid' });
    expect(byFilter.body.data).toEqual({ queued: 0 });
    // Even a row made due by hand (a direct write) is left alone by the background pass, which checks a
    // contact made after it.
    await q('UPDATE contacts SET verification_due_at = now() WHERE id = $1', [id]);
    const other = await api(app, t.token)
      .post('/contacts')
      .send({ email: `jane@${domain}`, first_name: 'Jane' });
    expect(await checked(other.body.data.id as number)).toMatchObject({ status: 'valid' });
    expect(await verificationOf(id)).toEqual(bounced);
  });

  it('the migration marks contacts an earlier hard bounce made invalid, and only those', async () => {
    const insert = async (email: string, reasons: string[], suppression: string | null): Promise<number> => {
      const [row] = (await q(
        `INSERT INTO contacts (workspace_id, email, verification_status, verification_reasons,
           verification_checked_at, verification_due_at, suppression_reason, suppressed_at)
         VALUES ($1, $2, 'invalid', $3::text[], now(), NULL, $4, CASE WHEN $4::text IS NULL THEN NULL ELSE now() END)
         RETURNING id`,
        [t.workspaceId, email, reasons, suppression],
      )) as Array<{ id: number }>;
      return Number(row.id);
    };
    const earlier = await insert(`earlier@${domain}`, ['mailbox_unknown'], 'bounced');
    const probed = await insert(`probed@${domain}`, ['mailbox_unknown'], null);
    const noMx = await insert(`nomx@${domain}`, ['no_mx'], 'bounced');
    const runner = db.createQueryRunner();
    try {
      await new BouncedVerdict1800740000000().up(runner);
    } finally {
      await runner.release();
    }
    const marked = async (id: number): Promise<boolean> =>
      (
        await one<{ marked: boolean }>(
          'SELECT verification_bounced_at IS NOT NULL AS marked FROM contacts WHERE id = $1',
          [id],
        )
      ).marked;
    expect([await marked(earlier), await marked(probed), await marked(noMx)]).toEqual([true, false, false]);
    const res = await api(app, t.token)
      .post('/contacts/verify')
      .send({ contact_ids: [earlier, probed, noMx] });
    expect(res.body.data).toEqual({ queued: 2 });
  });
});
