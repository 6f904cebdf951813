/**
 * Validation messages say what was wrong with a value that was sent ("must be a valid email
 * address", "must be an integer from 1 to 100"), and "is required" only for a value that is missing.
 */
import { api, createTenant, type TestTenant, useApp, app } from '../helpers/app.js';

describe('validation messages', () => {
  useApp();
  let t: TestTenant;
  beforeAll(async () => {
    t = await createTenant(app);
  });

  const error = (res: { status: number; body: unknown }) => {
    expect(res.status).toBe(422);
    return (res.body as { error: { type: string; field: string; message: string } }).error;
  };

  it.each([
    [
      'POST /contacts with an invalid email',
      () => api(app, t.token).post('/contacts').send({ email: 'not-an-email', first_name: 'A' }),
      'email',
      /must be a valid email address/,
    ],
    [
      'POST /contacts without an email',
      () => api(app, t.token).post('/contacts').send({ first_name: 'A' }),
      'email',
      /is required/,
    ],
    ['per_page=500', () => api(app, t.token).get('/contacts?per_page=500'), 'per_page', /from 1 to 100/],
    [
      'created_after=yesterday',
      () => api(app, t.token).get('/contacts?created_after=yesterday'),
      'created_after',
      /must be/,
    ],
    [
      'a sequence name of the wrong type',
      () => api(app, t.token).post('/sequences').send({ name: 42 }),
      'name',
      /must be a string/,
    ],
    [
      'a campaign daily_limit of 0',
      () => api(app, t.token).post('/campaigns').send({ name: 'C', daily_limit: 0 }),
      'daily_limit',
      /must not be less than 1|at least 1|from 1/,
    ],
  ])('%s', async (_what, send, field, message) => {
    const e = error(await send());
    expect(e.type).toBe('validation_failed');
    expect(e.field).toBe(field);
    expect(e.message).toMatch(message);
    if (!/is required/.test(String(message))) expect(e.message).not.toMatch(/is required/);
  });
});
