import type { Test } from 'supertest';
import { Contact } from '../../src/modules/contacts/entities/contact.entity.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { Message } from '../../src/modules/threads/entities/message.entity.js';
import { Thread } from '../../src/modules/threads/entities/thread.entity.js';
import { api, createTenant, type TestTenant, useApp, app, db, workspaceKey } from '../helpers/app.js';

const MALFORMED = ['abc', '0', '-1', '1'.repeat(30)];

describe('threads and messages (read routes)', () => {
  // Read routes only: the API role, so no background sweep categorises a seeded reply between two reads.
  useApp({ env: { APP_ROLE: 'api' } });
  let t: TestTenant;
  let other: TestTenant;
  let n = 0;

  interface Seeded {
    inboxId: string;
    contactId: number;
    thread: Thread;
    messages: Message[];
  }

  /** A thread with an outbound first step, a reply and (optionally) a purged message, written as the engine would. */
  const seed = async (
    tenant: TestTenant,
    campaignId: number | null = null,
    inboxId?: string,
  ): Promise<Seeded> => {
    n += 1;
    const inbox =
      inboxId ??
      (
        await connectInbox(db, {
          workspaceId: tenant.workspaceId,
          email: `me${n}@out${n}.test`,
          smtp: { host: 'smtp.test', port: 25, secure: false, user: null, password: null },
        })
      ).inbox.id;
    const contacts = db.getRepository(Contact);
    const contact = await contacts.save(
      contacts.create({ workspaceId: tenant.workspaceId, email: `lead${n}@x${n}.test` }),
    );
    const threads = db.getRepository(Thread);
    const thread = await threads.save(
      threads.create({
        workspaceId: tenant.workspaceId,
        inboxId: inbox,
        contactId: contact.id,
        enrollmentId: null,
        campaignId,
        subject: `Hello ${n}`,
        messageCount: 3,
        lastMessageAt: new Date(),
      }),
    );
    const messages = db.getRepository(Message);
    const sent = new Date(Date.now() - 3600_000);
    const rows = [
      messages.create({
        workspaceId: tenant.workspaceId,
        threadId: thread.id,
        direction: 'outbound',
        kind: 'email',
        fromAddress: `me${n}@out${n}.test`,
        toAddress: contact.email,
        subject: `Hello ${n}`,
        body: 'First step body',
        messageId: `<m${n}.1@out${n}.test>`,
        status: 'sent',
        sentAt: sent,
        stepPosition: 1,
        variant: 'B',
      }),
      messages.create({
        workspaceId: tenant.workspaceId,
        threadId: thread.id,
        direction: 'inbound',
        kind: 'reply',
        fromAddress: contact.email,
        toAddress: `me${n}@out${n}.test`,
        subject: `Re: Hello ${n}`,
        body: 'Sounds good',
        messageId: `<r${n}@x${n}.test>`,
        inReplyTo: `<m${n}.1@out${n}.test>`,
        status: 'received',
        receivedAt: new Date(),
      }),
      messages.create({
        workspaceId: tenant.workspaceId,
        threadId: thread.id,
        direction: 'outbound',
        kind: 'email',
        fromAddress: `me${n}@out${n}.test`,
        toAddress: contact.email,
        subject: null,
        body: 'this text was purged',
        bodyPurgedAt: new Date(),
        messageId: `<m${n}.2@out${n}.test>`,
        inReplyTo: `<m${n}.1@out${n}.test>`,
        status: 'sending',
        stepPosition: 2,
      }),
    ];
    const saved: Message[] = [];
    for (const row of rows) saved.push(await messages.save(row));
    return { inboxId: inbox, contactId: contact.id, thread, messages: saved };
  };

  beforeAll(async () => {
    t = await createTenant(app);
    other = await createTenant(app);
  });

  it('shows a thread and its messages with the documented fields', async () => {
    const s = await seed(t, null);
    const thread = await api(app, t.token).get(`/threads/${s.thread.id}`);
    expect(thread.status).toBe(200);
    expect(thread.body.data).toEqual({
      id: s.thread.id,
      inbox_id: s.inboxId,
      contact_id: s.contactId,
      enrollment_id: null,
      campaign_id: null,
      subject: s.thread.subject,
      message_count: 3,
      last_message_at: s.thread.lastMessageAt!.toISOString(),
      category: null,
      follow_up_at: null,
      referral_email: null,
      created_at: s.thread.createdAt.toISOString(),
    });
    const list = await api(app, t.token).get(`/threads/${s.thread.id}/messages`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { id: number }) => m.id)).toEqual(s.messages.map((m) => m.id).reverse());
    const [purged, reply, first] = list.body.data;
    expect(first).toEqual({
      id: s.messages[0].id,
      thread_id: s.thread.id,
      direction: 'outbound',
      kind: 'email',
      from: s.messages[0].fromAddress,
      to: s.messages[0].toAddress,
      subject: s.messages[0].subject,
      body: 'First step body',
      body_purged_at: null,
      message_id: s.messages[0].messageId,
      in_reply_to: null,
      status: 'sent',
      sent_at: s.messages[0].sentAt!.toISOString(),
      received_at: null,
      step_position: 1,
      variant: 'B',
      error: null,
      bounce: null,
      category: null,
      category_source: null,
      created_at: s.messages[0].createdAt.toISOString(),
    });
    expect(reply).toMatchObject({
      direction: 'inbound',
      kind: 'reply',
      status: 'received',
      sent_at: null,
      variant: null,
    });
    expect(reply.received_at).toEqual(expect.any(String));
    expect(purged).toMatchObject({ body: null, status: 'sending', step_position: 2, subject: null });
    expect(purged.body_purged_at).toEqual(expect.any(String));
    const one = await api(app, t.token).get(`/messages/${s.messages[1].id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(reply);
    // `error` says why a message failed.
    await db.query(`UPDATE messages SET status = 'failed', error = $2 WHERE id = $1`, [
      purged.id,
      'outcome unknown: step 2 was handed to the SMTP server but no final reply came',
    ]);
    const failed = await api(app, t.token).get(`/messages/${purged.id}`);
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      error: 'outcome unknown: step 2 was handed to the SMTP server but no final reply came',
    });
  });

  it('pages the messages of one thread with cursors bound to that thread', async () => {
    const a = await seed(t);
    const b = await seed(t);
    const p1 = await api(app, t.token).get(`/threads/${a.thread.id}/messages?per_page=2`);
    expect(p1.body.data).toHaveLength(2);
    const p2 = await api(app, t.token).get(
      `/threads/${a.thread.id}/messages?per_page=2&cursor=${p1.body.next_cursor}`,
    );
    expect(p2.body.data.map((m: { id: number }) => m.id)).toEqual([a.messages[0].id]);
    const crossed = await api(app, t.token).get(
      `/threads/${b.thread.id}/messages?cursor=${p1.body.next_cursor}`,
    );
    expect(crossed.status).toBe(422);
    expect(crossed.body.error.field).toBe('cursor');
  });

  it('filters threads by contact, campaign and inbox; bad values are 422; unknown params ignored', async () => {
    const tenant = await createTenant(app);
    const x = await seed(tenant, 101);
    const y = await seed(tenant, 202, x.inboxId);
    const z = await seed(tenant, null);
    await seed(other, 101);
    const ids = async (qs: string): Promise<number[]> => {
      const res = await api(app, tenant.token).get(`/threads${qs}`);
      expect(res.status).toBe(200);
      return res.body.data.map((th: { id: number }) => th.id);
    };
    expect(await ids('')).toEqual([z.thread.id, y.thread.id, x.thread.id]);
    expect(await ids('?campaign_id=101')).toEqual([x.thread.id]);
    expect(await ids(`?contact_id=${y.contactId}`)).toEqual([y.thread.id]);
    expect(await ids(`?inbox_id=${x.inboxId}`)).toEqual([y.thread.id, x.thread.id]);
    expect(await ids(`?inbox_id=${x.inboxId.toUpperCase()}&campaign_id=202`)).toEqual([y.thread.id]);
    expect(await ids('?workspace_id=foo&thread=1')).toEqual([z.thread.id, y.thread.id, x.thread.id]);
    for (const [qs, field] of [
      ['?campaign_id=abc', 'campaign_id'],
      ['?campaign_id=0', 'campaign_id'],
      ['?contact_id=-1', 'contact_id'],
      [`?contact_id=${'1'.repeat(30)}`, 'contact_id'],
      ['?inbox_id=nope', 'inbox_id'],
      ['?inbox_id=', 'inbox_id'],
    ] as const) {
      const res = await api(app, tenant.token).get(`/threads${qs}`);
      expect({ qs, status: res.status, field: res.body.error?.field }).toEqual({ qs, status: 422, field });
    }
  });

  it('needs threads:read', async () => {
    const key = await workspaceKey(app, t.workspaceId, ['contacts:read']);
    expect((await api(app, key).get('/threads')).status).toBe(403);
    expect((await api(app, key).get('/messages/1')).status).toBe(403);
  });

  it('answers the same 404 for foreign, missing and malformed ids on every id route', async () => {
    const foreign = await seed(other);
    const routes: Array<[(id: string) => string, number]> = [
      [(id) => `/threads/${id}`, foreign.thread.id],
      [(id) => `/threads/${id}/messages`, foreign.thread.id],
      [(id) => `/messages/${id}`, foreign.messages[0].id],
    ];
    for (const [path, foreignId] of routes) {
      const bodies = new Set<string>();
      for (const id of [String(foreignId), '2147483647', ...MALFORMED]) {
        const req: Test = api(app, t.token).get(path(id));
        const res = await req;
        expect({ path: path(id), status: res.status }).toEqual({ path: path(id), status: 404 });
        bodies.add(JSON.stringify(res.body));
      }
      expect(bodies.size).toBe(1);
    }
    expect((await api(app, other.token).get(`/messages/${foreign.messages[0].id}`)).status).toBe(200);
  });
});
