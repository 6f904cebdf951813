/**
 * Keyset cursor pagination through GET /provisioning/workspaces: every row once in both
 * directions, the collection envelope, per_page bounds, and cursors bound to tenant and route.
 */
import { encodeCursor } from '../../src/common/http/pagination.js';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';

const LIST = '/provisioning/workspaces';
const PATH = 'http://service.test/api/v1/provisioning/workspaces';

interface Page {
  data: Array<{ id: string; name: string; created_at: string; organization_id: string }>;
  next_cursor: string | null;
  links: { first: string | null; last: string | null; prev: string | null; next: string | null };
  meta: { path: string; per_page: number; next_cursor: string | null; prev_cursor: string | null };
}

describe('cursor pagination', () => {
  useApp();
  let t: TestTenant;
  let other: TestTenant;
  /** Every workspace of t's organization, newest first by (created_at, id). */
  let expected: string[];

  beforeAll(async () => {
    t = await createTenant(app, { maxWorkspaces: 100 });
    other = await createTenant(app, { maxWorkspaces: 100 });
    for (let i = 0; i < 12; i++) {
      const res = await api(app, t.provisioningToken)
        .post(LIST)
        .send({ name: `Paged ${i}` });
      expect(res.status).toBe(201);
    }
    // Ten rows sharing one created_at: only the id tie-breaker orders them.
    await db.query(
      `INSERT INTO workspaces (organization_id, name, config, created_at, updated_at)
       SELECT $1, 'Tied ' || g, '{}'::jsonb, '2020-05-05T05:05:05.555Z', now() FROM generate_series(1, 10) g`,
      [t.organizationId],
    );
    const rows = (await db.query(
      `SELECT id FROM workspaces WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`,
      [t.organizationId],
    )) as Array<{ id: string }>;
    expected = rows.map((r) => r.id);
    expect(expected).toHaveLength(23);
  });

  const page = async (query: Record<string, string>, token = t.provisioningToken): Promise<Page> => {
    const res = await api(app, token).get(LIST).query(query);
    expect(res.status).toBe(200);
    return res.body as Page;
  };

  it('visits every row exactly once forward and backward, newest first', async () => {
    const forward: Page[] = [];
    let cursor: string | null = null;
    do {
      const p: Page = await page(cursor ? { per_page: '5', cursor } : { per_page: '5' });
      forward.push(p);
      cursor = p.next_cursor;
    } while (cursor && forward.length < 20);
    expect(forward.map((p) => p.data.length)).toEqual([5, 5, 5, 5, 3]);
    expect(forward.flatMap((p) => p.data.map((w) => w.id))).toEqual(expected);
    expect(forward[0].meta.prev_cursor).toBeNull();
    expect(forward[0].links.prev).toBeNull();
    expect(forward[4].next_cursor).toBeNull();
    expect(forward[4].links.next).toBeNull();
    for (const p of forward.slice(1)) expect(p.meta.prev_cursor).toEqual(expect.any(String));

    // Back from the last page to the first, following prev cursors.
    const backward: Page[] = [forward[4]];
    let prev = forward[4].meta.prev_cursor;
    while (prev && backward.length < 20) {
      const p = await page({ per_page: '5', cursor: prev });
      backward.unshift(p);
      prev = p.meta.prev_cursor;
    }
    expect(backward.map((p) => p.data.map((w) => w.id))).toEqual(forward.map((p) => p.data.map((w) => w.id)));
    expect(backward[0].meta.prev_cursor).toBeNull();
    // A page reached backwards still leads forward.
    const again = await page({ per_page: '5', cursor: backward[1].next_cursor! });
    expect(again.data.map((w) => w.id)).toEqual(forward[2].data.map((w) => w.id));
  });

  it('builds the collection envelope on PUBLIC_URL', async () => {
    const first = await page({ per_page: '2', unknown_param: 'kept' });
    expect(Object.keys(first).sort()).toEqual(['data', 'links', 'meta', 'next_cursor']);
    expect(first.meta).toEqual({
      path: PATH,
      per_page: 2,
      next_cursor: first.next_cursor,
      prev_cursor: null,
    });
    expect(first.links.first).toBe(`${PATH}?per_page=2&unknown_param=kept`);
    expect(first.links.last).toBeNull();
    expect(first.links.prev).toBeNull();
    const next = new URL(first.links.next!);
    expect(`${next.origin}${next.pathname}`).toBe(PATH);
    expect(next.searchParams.get('cursor')).toBe(first.next_cursor);
    expect(next.searchParams.get('per_page')).toBe('2');
    const followed = await api(app, t.provisioningToken).get(LIST + next.search);
    expect(followed.status).toBe(200);
    expect(followed.body.data.map((w: { id: string }) => w.id)).toEqual(expected.slice(2, 4));
    expect(new URL(followed.body.links.prev).searchParams.get('cursor')).toBe(followed.body.meta.prev_cursor);
    const defaults = await page({});
    expect(defaults.meta.per_page).toBe(25);
    expect(defaults.data).toHaveLength(23);
    expect(defaults.next_cursor).toBeNull();
    expect((await page({ per_page: '100' })).data).toHaveLength(23);
    expect((await page({ per_page: '1' })).data.map((w) => w.id)).toEqual([expected[0]]);
  });

  it('answers 422 field per_page outside 1..100 or not an integer', async () => {
    for (const bad of ['0', '101', 'abc', '-1', '1.5', '', '1e2', ' 5', '0x10', '5.0', '99999999999']) {
      const res = await api(app, t.provisioningToken).get(LIST).query({ per_page: bad });
      expect({ bad, status: res.status, field: res.body.error?.field }).toEqual({
        bad,
        status: 422,
        field: 'per_page',
      });
      expect(res.body.error.type).toBe('validation_failed');
    }
    const twice = await api(app, t.provisioningToken).get(`${LIST}?per_page=5&per_page=6`);
    expect(twice.status).toBe(422);
    expect(twice.body.error.field).toBe('per_page');
  });

  const expectCursorRejected = async (cursor: string, token = t.provisioningToken): Promise<void> => {
    const res = await api(app, token).get(LIST).query({ cursor });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: expect.objectContaining({ type: 'validation_failed', field: 'cursor' }),
    });
    expect(res.body.data).toBeUndefined();
  };

  it('answers 422 field cursor for a tampered or malformed cursor', async () => {
    const { next_cursor } = await page({ per_page: '3' });
    const [body, sig] = next_cursor!.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as {
      d: string;
      t: string;
      i: string;
    };
    const forged = Buffer.from(JSON.stringify({ ...payload, t: '2999-01-01T00:00:00.000Z' })).toString(
      'base64url',
    );
    await expectCursorRejected(`${forged}.${sig}`);
    await expectCursorRejected(`${body}.${sig.slice(1)}`);
    await expectCursorRejected(`${body}x.${sig}`);
    for (const bad of ['garbage', 'a.b', '.', 'a.b.c', "'; DROP TABLE workspaces; --", 'x'.repeat(1001)]) {
      await expectCursorRejected(bad);
    }
    const twice = await api(app, t.provisioningToken).get(
      `${LIST}?cursor=${encodeURIComponent(next_cursor!)}&cursor=x`,
    );
    expect(twice.status).toBe(422);
    expect(twice.body.error.field).toBe('cursor');
  });

  it("never serves another organization's rows for its cursor", async () => {
    const foreign = await page({ per_page: '1' }, other.provisioningToken);
    expect(foreign.data).toHaveLength(1);
    expect(foreign.data[0].organization_id).toBe(other.organizationId);
    // other has one workspace: make a next cursor exist by adding one.
    await api(app, other.provisioningToken).post(LIST).send({ name: 'Second' });
    const foreignFirst = await page({ per_page: '1' }, other.provisioningToken);
    expect(foreignFirst.next_cursor).toEqual(expect.any(String));
    await expectCursorRejected(foreignFirst.next_cursor!);
    // And the other way round.
    const mine = await page({ per_page: '1' });
    await expectCursorRejected(mine.next_cursor!, other.provisioningToken);
  });

  it('rejects a validly signed cursor made for another route or another workspace', async () => {
    const newest = (await page({ per_page: '1' })).data[0];
    const payload = { d: 'n' as const, t: newest.created_at, i: newest.id };
    await expectCursorRejected(encodeCursor({ tenant: t.organizationId, route: 'contacts.index' }, payload));
    await expectCursorRejected(
      encodeCursor({ tenant: t.workspaceId, route: 'provisioning.workspaces.index' }, payload),
    );
    await expectCursorRejected(
      encodeCursor({ tenant: other.organizationId, route: 'provisioning.workspaces.index' }, payload),
    );
    // The same payload bound to the right tenant and route is accepted: the binding is what failed above.
    const ok = await api(app, t.provisioningToken)
      .get(LIST)
      .query({
        cursor: encodeCursor({ tenant: t.organizationId, route: 'provisioning.workspaces.index' }, payload),
      });
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((w: { id: string }) => w.id)).toEqual(expected.slice(1));
  });
});
