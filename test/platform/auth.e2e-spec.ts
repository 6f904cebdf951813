import { checksum } from '../../src/common/auth/token.js';
import { DataSource } from 'typeorm';
import { CACHE_TTL_MS } from '../../src/modules/api-keys/api-key-auth.service.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { api, createTenant, mintKey, type TestTenant, useApp, app } from '../helpers/app.js';

describe('credentials: the 401/403 matrix and /me', () => {
  useApp();
  let t: TestTenant;

  beforeAll(async () => {
    t = await createTenant(app);
  });

  const expect401 = async (header: string | undefined): Promise<void> => {
    let req = api(app).get('/me');
    if (header !== undefined) req = req.set('Authorization', header);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.body.error.type).toBe('authentication_failed');
    expect(res.headers['content-type']).toMatch(/application\/json/);
  };

  it('answers 401 for missing, malformed, bad checksum, unknown, expired and revoked keys', async () => {
    await expect401(undefined);
    await expect401('Bearer');
    await expect401('Basic abc');
    await expect401('Bearer not-a-key');
    const flipped = t.token.slice(0, 10) + (t.token[10] === 'a' ? 'b' : 'a') + t.token.slice(11);
    await expect401(`Bearer ${flipped}`);
    const body = 'svc_sk_' + 'A'.repeat(32);
    await expect401(`Bearer ${body}${checksum(body)}`);
    const expired = await mintKey(app, {
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: ['contacts:read'],
      expiresAt: new Date(Date.now() - 1000),
    });
    await expect401(`Bearer ${expired}`);
    const keys = app.get(ApiKeysService);
    const revoked = await keys.create({
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: ['contacts:read'],
    });
    expect((await api(app, revoked.token).get('/me')).status).toBe(200);
    await keys.revoke(revoked.key.id);
    await expect401(`Bearer ${revoked.token}`);
  });

  it('takes the key only from the Authorization header, never from the query string or body', async () => {
    const inQuery = await api(app).get(`/me?access_token=${encodeURIComponent(t.token)}`);
    expect(inQuery.status).toBe(401);
    expect(inQuery.body.error.type).toBe('authentication_failed');
    const inBody = await api(app)
      .post('/contacts')
      .set('Content-Type', 'application/json')
      .send({ email: 'body-token@example.com', access_token: t.token });
    expect(inBody.status).toBe(401);
    // With the header, a stray access_token parameter is just an unknown parameter.
    const both = await api(app, t.token).get('/me?access_token=whatever');
    expect(both.status).toBe(200);
    expect(both.body.data.prefix).toBe(t.token.slice(0, 12));
  });

  it('a key revoked by another process (straight in the database) stops working within the cache TTL', async () => {
    const keys = app.get(ApiKeysService);
    const other = await keys.create({
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: ['contacts:read'],
    });
    expect((await api(app, other.token).get('/me')).status).toBe(200);
    await app.get(DataSource).query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [other.key.id]);
    await new Promise((r) => setTimeout(r, CACHE_TTL_MS + 100));
    await expect401(`Bearer ${other.token}`);
  });

  it('answers 403 for wrong tier, missing scope and disallowed source IP', async () => {
    const wrongTier = await api(app, t.token).get('/provisioning/workspaces');
    expect(wrongTier.status).toBe(403);
    expect(wrongTier.body.error.type).toBe('forbidden');
    const createOnly = await mintKey(app, {
      tier: 'provisioning',
      organizationId: t.organizationId,
      scopes: ['workspaces:create'],
    });
    const noScope = await api(app, createOnly).get('/provisioning/workspaces');
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.message).toContain('workspaces:configure');
    const farAway = await mintKey(app, {
      tier: 'provisioning',
      organizationId: t.organizationId,
      scopes: ['workspaces:configure'],
      allowedIps: ['203.0.113.0/24'],
    });
    const ip = await api(app, farAway).get('/provisioning/workspaces');
    expect(ip.status).toBe(403);
    const local = await mintKey(app, {
      tier: 'provisioning',
      organizationId: t.organizationId,
      scopes: ['workspaces:configure'],
      allowedIps: ['127.0.0.0/8', '::1/128'],
    });
    expect((await api(app, local).get('/provisioning/workspaces')).status).toBe(200);
  });

  it('GET /me describes the key and never returns a secret or hash', async () => {
    const res = await api(app, t.token).get('/me');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      tier: 'workspace',
      prefix: t.token.slice(0, 12),
      workspace_id: t.workspaceId,
      organization_id: t.organizationId,
      rate_limit: { limit: 600, window_seconds: 60 },
      expires_at: null,
      allowed_ips: [],
    });
    expect(res.body.data.scopes).toContain('contacts:read');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(t.token);
    expect(text).not.toMatch(/token_hash|tokenHash|[0-9a-f]{64}/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['ratelimit-policy']).toBe('"per-key";q=600;w=60');
    expect(res.headers['ratelimit']).toMatch(/^"per-key";r=\d+;t=\d+$/);
    const pk = await api(app, t.provisioningToken).get('/me');
    expect(pk.body.data).toMatchObject({
      tier: 'provisioning',
      workspace_id: null,
      organization_id: t.organizationId,
    });
    expect(pk.body.data.rate_limit.limit).toBe(120);
  });
});
