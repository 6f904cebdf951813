import { MAX_STEPS, MAX_VARIANTS } from '../../src/modules/sequences/dto/sequence.dto.js';
import {
  RENDER_BUDGET_MS,
  renderBudget,
  renderTemplate,
  sampleTemplateVars,
} from '../../src/modules/sequences/templates.js';
import { api, createTenant, type TestTenant, useApp, app, workspaceKey } from '../helpers/app.js';

const MALFORMED = ['abc', '0', '-1', '1'.repeat(30), '1.5'];
const step = (position: number, extra: Record<string, unknown> = {}) => ({
  position,
  delay_minutes: position === 1 ? 0 : 60,
  subject: position === 1 ? 'Hello {{ first_name }}' : null,
  body: `Step ${position} for {{ company | default: "you" }}`,
  ...extra,
});

describe('sequences', () => {
  useApp();
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await createTenant(app);
    other = await createTenant(app);
  });

  const create = async (body: Record<string, unknown>) => api(app, t.token).post('/sequences').send(body);

  it('creates a draft with steps and shows it', async () => {
    const res = await create({ name: 'Intro', steps: [step(1), step(2)] });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Intro',
      status: 'draft',
      published_at: null,
      steps: [
        { position: 1, delay_minutes: 0, subject: 'Hello {{ first_name }}' },
        { position: 2, delay_minutes: 60, subject: null },
      ],
    });
    expect(Object.keys(res.body.data).sort()).toEqual(
      ['created_at', 'id', 'name', 'published_at', 'status', 'steps', 'updated_at'].sort(),
    );
    const shown = await api(app, t.token).get(`/sequences/${res.body.data.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual(res.body.data);
  });

  it('validates steps: positions, delays, step-1 subject, unknown fields', async () => {
    const cases: Array<[unknown[], string]> = [
      [[step(2)], 'steps.0.position'],
      [[step(1), step(3)], 'steps.1.position'],
      [[step(2), step(1)], 'steps.0.position'],
      [[step(1, { delay_minutes: -1 })], 'steps.0.delay_minutes'],
      [[step(1, { delay_minutes: 1.5 })], 'steps.0.delay_minutes'],
      [[step(1, { subject: null })], 'steps.0.subject'],
      [[step(1, { subject: '   ' })], 'steps.0.subject'],
      [[step(1, { body: '' })], 'steps.0.body'],
      [[step(1, { extra: 1 })], 'steps.0.extra'],
    ];
    for (const [steps, field] of cases) {
      const res = await create({ name: 'Bad', steps });
      expect({ field, status: res.status, got: res.body.error?.field }).toEqual({
        field,
        status: 422,
        got: field,
      });
      expect(res.body.error.type).toBe('validation_failed');
    }
    const unknown = await create({ name: 'x', status: 'published' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.field).toBe('status');
  });

  it('rejects templates that do not parse, naming the step and the field', async () => {
    const cases: Array<[unknown[], string]> = [
      [[step(1, { body: 'Hi {{ first_name' })], 'steps.0.body'],
      [[step(1, { subject: '{% if x %}open' })], 'steps.0.subject'],
      [[step(1), step(2, { body: '{{ x | nope }}' })], 'steps.1.body'],
      [[step(1), step(2, { subject: '{% endif %}' })], 'steps.1.subject'],
      [[step(1), step(2), step(3, { body: "{% include 'secrets' %}" })], 'steps.2.body'],
      [[step(1, { body: "{% render '/etc/passwd' %}" })], 'steps.0.body'],
    ];
    for (const [steps, field] of cases) {
      const res = await create({ name: 'Bad template', steps });
      expect({ field, status: res.status, got: res.body.error?.field }).toEqual({
        field,
        status: 422,
        got: field,
      });
      expect(res.body.error.message).not.toMatch(/\n|at .*\.js/);
    }
    const seq = (await create({ name: 'Fine' })).body.data;
    const patch = await api(app, t.token)
      .patch(`/sequences/${seq.id}`)
      .send({ steps: [step(1), step(2, { body: '{% for %}' })] });
    expect(patch.status).toBe(422);
    expect(patch.body.error.field).toBe('steps.1.body');
  });

  it('one render budget per save, not per variant: 50 steps × 5 variants each just under the budget cost one budget of CPU', async () => {
    // A template that renders well within one step's budget for the sample contact (8 to 25 ms).
    const loops = (n: number): string =>
      `{% for a in (1..${n}) %}{% for b in (1..100) %}{% endfor %}{% endfor %}ok {{ first_name }}`;
    const renderMs = async (template: string): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await renderTemplate(template, sampleTemplateVars(), renderBudget());
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[2];
    };
    // Warm the JIT first, so the figure is what a save really pays per render.
    for (let i = 0; i < 30; i++) await renderTemplate(loops(20), sampleTemplateVars(), renderBudget());
    // Doubled until a measurement says at least 8 ms, and that measurement is the one used: sized on
    // one measurement and checked on a second, a loaded machine made the two disagree (11 ms, then
    // 7.7 ms).
    let n = 10;
    let ms = await renderMs(loops(n));
    while (ms < 8 && n < 100_000) {
      n *= 2;
      ms = await renderMs(loops(n));
    }
    const heavy = loops(n);
    expect(ms).toBeGreaterThanOrEqual(8);
    expect(ms).toBeLessThan(RENDER_BUDGET_MS);
    const steps = Array.from({ length: MAX_STEPS }, (_, i) =>
      step(i + 1, {
        body: heavy,
        variants: Array.from({ length: MAX_VARIANTS }, () => ({
          subject: i === 0 ? 'Hi' : null,
          body: heavy,
        })),
      }),
    );
    const contents = MAX_STEPS * (MAX_VARIANTS + 1);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const res = await create({ name: 'Heavy everywhere', steps });
    const spent = process.cpuUsage(cpu);
    const cpuMs = (spent.user + spent.system) / 1000;
    const wallMs = performance.now() - started;
    // Per variant this would have cost contents × ms (250 × ≥ 8 ms ≥ 2 s); one budget is 50 ms, at
    // most twice with the one retry, plus the request itself.
    expect({
      contents,
      perRenderMs: Math.round(ms),
      status: res.status,
      field: res.body.error?.field,
    }).toEqual({
      contents,
      perRenderMs: Math.round(ms),
      status: 422,
      field: expect.stringMatching(/^steps\.\d+(\.variants\.\d+)?\.body$/),
    });
    expect(res.body.error.message).toMatch(/one 50 ms budget for a whole save/);
    expect(cpuMs).toBeLessThan(600);
    expect(wallMs).toBeLessThan(1500);
    // An ordinary sequence of the same shape still saves.
    const ordinary = Array.from({ length: MAX_STEPS }, (_, i) =>
      step(i + 1, {
        variants: Array.from({ length: MAX_VARIANTS }, (_, j) => ({
          subject: i === 0 ? `Hi {{ first_name }} (${j})` : null,
          body: `Variant ${j} for {{ first_name }} at {{ company | default: "you" }}`,
        })),
      }),
    );
    expect((await create({ name: 'Ordinary', steps: ordinary })).status).toBe(201);
  });

  it('refuses templates over the render budget at save (time, size, data), naming the step and field, quickly', async () => {
    const nested = '{% for a in (1..1000) %}{% for b in (1..1000) %}x{% endfor %}{% endfor %}';
    const doubled = (v: string): string =>
      `{% assign s = ${v} %}{% for i in (1..10) %}{% assign s = s | append: s %}{% endfor %}{{ s }}{{ s }}{{ s }}`;
    const cases: Array<[unknown[], string, RegExp]> = [
      [[step(1), step(2, { body: nested })], 'steps.1.body', /longer than 50 ms/],
      [[step(1, { subject: nested })], 'steps.0.subject', /longer than 50 ms/],
      // An output bomb: 300 KB from a 1 KB literal.
      [
        [step(1, { body: '{% for a in (1..300) %}' + 'x'.repeat(1000) + '{% endfor %}' })],
        'steps.0.body',
        /larger than 256 KiB/,
      ],
      // Harmless for short names (3 × 1,024 × the name), over the budget for the sample contact's
      // 100-character fields; custom fields of the sample are 100 characters too, whatever their name.
      [[step(1), step(2), step(3, { body: doubled('last_name') })], 'steps.2.body', /larger than 256 KiB/],
      [[step(1, { body: doubled('custom_fields.city') })], 'steps.0.body', /larger than 256 KiB/],
      [
        [step(1, { body: '{% assign a = (1..100000) | where_exp: "i", "i > 5" %}{{ a | size }}' })],
        'steps.0.body',
        /too much data/,
      ],
    ];
    for (const [steps, field, message] of cases) {
      const started = Date.now();
      const res = await create({ name: 'Budget', steps });
      const elapsed = Date.now() - started;
      expect({ field, status: res.status, got: res.body.error?.field, type: res.body.error?.type }).toEqual({
        field,
        status: 422,
        got: field,
        type: 'validation_failed',
      });
      expect(res.body.error.message).toMatch(message);
      expect(res.body.error.message).toContain(field);
      // Refused by the budget, not after rendering the whole thing (~1 s and more).
      expect(elapsed).toBeLessThan(1000);
    }
    const seq = (await create({ name: 'Draft' })).body.data;
    const patch = await api(app, t.token)
      .patch(`/sequences/${seq.id}`)
      .send({ steps: [step(1), step(2, { body: nested })] });
    expect(patch.status).toBe(422);
    expect(patch.body.error.field).toBe('steps.1.body');
    expect((await api(app, t.token).get(`/sequences/${seq.id}`)).body.data.steps).toEqual([]);
  });

  it('saves ordinary templates under the budget, loops over custom fields and sender included', async () => {
    const body =
      '{% for f in custom_fields %}{{ f[0] }}: {{ f[1] | truncate: 20 }}\n{% endfor %}' +
      '{{ first_name | capitalize }} / {{ sender.display_name }} <{{ sender.email }}> {{ sender.domain }}' +
      '{% for i in (1..20) %}{{ company }}{% endfor %}';
    const res = await create({
      name: 'Ordinary',
      steps: [step(1, { subject: '{{ first_name }} {{ company | upcase }}', body }), step(2)],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.steps[0].body).toBe(body);
    const patched = await api(app, t.token)
      .patch(`/sequences/${res.body.data.id}`)
      .send({ steps: [step(1, { body })] });
    expect(patched.status).toBe(200);
  });

  it('refuses text PostgreSQL cannot store and nulls for required fields, never a 500', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: 'x', steps: null }, 'steps'],
      [{ name: 'x', steps: [null] }, 'steps.0'],
      [{ name: 'x', steps: [step(1, { body: 'nul\u0000' })] }, 'steps.0.body'],
      [{ name: 'x', steps: [step(1, { subject: 'nul\u0000' })] }, 'steps.0.subject'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect({ body, status: res.status, field: res.body.error?.field }).toEqual({
        body,
        status: 422,
        field,
      });
    }
    const seq = (await create({ name: 'ok' })).body.data.id as number;
    for (const [body, field] of [
      [{ name: null }, 'name'],
      [{ steps: null }, 'steps'],
      [{ status: null }, 'status'],
    ] as const) {
      const res = await api(app, t.token).patch(`/sequences/${seq}`).send(body);
      expect({ body, status: res.status, field: res.body.error?.field }).toEqual({
        body,
        status: 422,
        field,
      });
    }
    const lone = await create({ name: 'surrogates', steps: [step(1, { body: 'a\ud800b' })] });
    // Not valid Unicode: 422 naming the field.
    expect({ status: lone.status, field: lone.body.error?.field }).toEqual({
      status: 422,
      field: 'steps.0.body',
    });
  });

  it('replaces steps while draft, publishes, then freezes steps (409)', async () => {
    const seq = (await create({ name: 'Flow' })).body.data;
    const noSteps = await api(app, t.token).post(`/sequences/${seq.id}/publish`);
    expect(noSteps.status).toBe(422);
    expect(noSteps.body.error.field).toBe('steps');

    const replaced = await api(app, t.token)
      .patch(`/sequences/${seq.id}`)
      .send({ steps: [step(1), step(2), step(3)] });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.steps).toHaveLength(3);
    const shrunk = await api(app, t.token)
      .patch(`/sequences/${seq.id}`)
      .send({ steps: [step(1)] });
    expect(shrunk.body.data.steps).toHaveLength(1);

    const published = await api(app, t.token).post(`/sequences/${seq.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.data.status).toBe('published');
    expect(published.body.data.published_at).toEqual(expect.any(String));

    const frozen = await api(app, t.token)
      .patch(`/sequences/${seq.id}`)
      .send({ steps: [step(1), step(2)] });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error.type).toBe('conflict');
    const again = await api(app, t.token).post(`/sequences/${seq.id}/publish`);
    expect(again.status).toBe(409);

    const renamed = await api(app, t.token).patch(`/sequences/${seq.id}`).send({ name: 'Flow v1' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Flow v1', status: 'published' });
    expect(renamed.body.data.steps).toHaveLength(1);

    const archived = await api(app, t.token).patch(`/sequences/${seq.id}`).send({ status: 'archived' });
    expect(archived.body.data.status).toBe('archived');
    expect((await api(app, t.token).post(`/sequences/${seq.id}/publish`)).status).toBe(409);
    const badStatus = await api(app, t.token).patch(`/sequences/${seq.id}`).send({ status: 'published' });
    expect(badStatus.status).toBe(422);
    expect(badStatus.body.error.field).toBe('status');
  });

  it('publishes exactly once under concurrency', async () => {
    const seq = (await create({ name: 'Race', steps: [step(1)] })).body.data;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => api(app, t.token).post(`/sequences/${seq.id}/publish`)),
    );
    const codes = results.map((r) => r.status).sort();
    expect(codes).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it('lists newest first with cursor paging, only this tenant', async () => {
    const mine = await createTenant(app);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await api(app, mine.token)
            .post('/sequences')
            .send({ name: `S${i}` })
        ).body.data.id,
      );
    }
    await api(app, other.token).post('/sequences').send({ name: 'foreign' });
    const page1 = await api(app, mine.token).get('/sequences?per_page=3&name=foreign');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((s: { id: number }) => s.id)).toEqual([ids[4], ids[3], ids[2]]);
    const page2 = await api(app, mine.token).get(`/sequences?per_page=3&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((s: { id: number }) => s.id)).toEqual([ids[1], ids[0]]);
    expect(page2.body.next_cursor).toBeNull();
    const foreignCursor = await api(app, other.token).get(`/sequences?cursor=${page1.body.next_cursor}`);
    expect(foreignCursor.status).toBe(422);
    expect(foreignCursor.body.error.field).toBe('cursor');
  });

  it('enforces scopes', async () => {
    const readOnly = await workspaceKey(app, t.workspaceId, ['sequences:read']);
    expect((await api(app, readOnly).get('/sequences')).status).toBe(200);
    expect((await api(app, readOnly).post('/sequences').send({ name: 'x' })).status).toBe(403);
    const none = await workspaceKey(app, t.workspaceId, ['contacts:read']);
    expect((await api(app, none).get('/sequences')).status).toBe(403);
  });

  it('answers the same 404 for foreign, missing and malformed ids on every id route', async () => {
    const foreign = (
      await api(app, other.token)
        .post('/sequences')
        .send({ name: 'theirs', steps: [step(1)] })
    ).body.data.id as number;
    const routes: Array<[string, (id: string) => string, Record<string, unknown> | undefined]> = [
      ['get', (id) => `/sequences/${id}`, undefined],
      ['patch', (id) => `/sequences/${id}`, { name: 'mine now' }],
      ['post', (id) => `/sequences/${id}/publish`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const bodies = new Set<string>();
      for (const id of [String(foreign), '2147483647', ...MALFORMED]) {
        const client = api(app, t.token) as unknown as Record<
          string,
          (p: string) => import('supertest').Test
        >;
        let req = client[method](path(id));
        if (body) req = req.send(body);
        const res = await req;
        expect({ method, id, status: res.status }).toEqual({ method, id, status: 404 });
        bodies.add(JSON.stringify(res.body));
      }
      expect(bodies.size).toBe(1);
    }
    const still = await api(app, other.token).get(`/sequences/${foreign}`);
    expect(still.body.data).toMatchObject({ name: 'theirs', status: 'draft' });
  });
});
