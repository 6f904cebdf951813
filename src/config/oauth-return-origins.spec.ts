import { ConfigError, loadConfig } from './app-config.js';

/** OAUTH_RETURN_ORIGINS: the origins an OAuth flow's return_url may be on. */
describe('OAUTH_RETURN_ORIGINS', () => {
  const base = {
    DATABASE_URL: 'postgres://x@127.0.0.1/db',
    API_KEY_PEPPER: 'a-pepper-of-sixteen-chars',
    ENCRYPTION_KEY: 'ab'.repeat(32),
    PORT: '4100',
  };
  const origins = (env: Record<string, string>): string[] =>
    loadConfig({ ...base, ...env }).oauthReturnOrigins;

  it("defaults to the service's own origin: PUBLIC_URL's, or localhost and 127.0.0.1 on PORT", () => {
    expect(origins({ PUBLIC_URL: 'https://outreach.example.com/base/' })).toEqual([
      'https://outreach.example.com',
    ]);
    expect(origins({})).toEqual(['http://localhost:4100', 'http://127.0.0.1:4100']);
  });

  it('takes a comma-separated list of origins', () => {
    expect(origins({ OAUTH_RETURN_ORIGINS: 'https://app.example.com, http://localhost:5173/' })).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it('refuses an entry that is not an http(s) origin', () => {
    for (const bad of [
      'https://app.example.com/settings',
      'app.example.com',
      'javascript:alert(1)',
      'ftp://x.example',
    ]) {
      expect(() => origins({ OAUTH_RETURN_ORIGINS: bad })).toThrow(ConfigError);
    }
  });
});
