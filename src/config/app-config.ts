/**
 * Typed configuration, read and validated once at start-up.
 * Everything else asks `appConfig()`; nothing reads process.env directly.
 */
import {
  AI_DAILY_LIMIT_MAX_CEILING,
  AI_DAILY_LIMIT_MAX_DEFAULT,
  parseAiModels,
  type AiModelAllowList,
} from './ai-models.js';
import { createHash } from 'node:crypto';
import {
  loadMailProviders,
  parseDnsServers,
  type MailProviderConfig,
  type OAuthProviderName,
} from './mail-providers.js';
import { ConfigError, intVar } from './env-vars.js';
import { verifyProbeSettings, type VerifyProbeSettings } from './verify-probe.js';

export type AppRole = 'all' | 'api' | 'worker';

export interface AppConfig {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** Empty in processes that need no Redis (the admin CLI). */
  /** Prefix for every Redis key this process writes (Bull queues, rate limits). */
  redisPrefix: string;
  publicUrl: string;
  /**
   * OAUTH_RETURN_ORIGINS: the origins an OAuth flow's `return_url` may be on (comma-separated);
   * default the service's own: PUBLIC_URL's origin, or http://localhost:<port> and
   * http://127.0.0.1:<port> without one.
   */
  oauthReturnOrigins: string[];
  apiKeyPepper: string;
  /** The newest of `encryptionKeys`: the key new values are sealed with. */
  encryptionKey: Buffer;
  /**
   * ENCRYPTION_KEYS (comma list, newest first), or ENCRYPTION_KEY alone when ENCRYPTION_KEYS is not
   * set. The first seals; every one opens the values sealed under it (chosen by key id).
   */
  encryptionKeys: Buffer[];
  trustProxy: string[];
  appRole: AppRole;
  webhookAllowedTestHosts: string[];
  webhookRetryScheduleSeconds: number[];
  sendTickMs: number;
  sendMinGapSeconds: number;
  /**
   * How long a send claim holds an enrollment (SEND_LEASE_SECONDS, default 600). One SMTP conversation
   * is bounded to a third of it (at most 120 s), and none starts late in a claim, so no conversation of
   * a claim is still running when another worker may take the enrollment over (docs/trust/sending.md).
   */
  sendLeaseSeconds: number;
  /**
   * IMAP_POLL_SECONDS (default 60): each connected mailbox is read again at least this often (the
   * fallback when the server offers no IDLE, and a safety net beside IDLE); docs/mailboxes.md.
   */
  imapPollSeconds: number;
  /** IMAP_POLL_CONCURRENCY (default 4): IMAP connections being opened (connect, login, select) at once by one worker. */
  imapPollConcurrency: number;
  /**
   * IMAP_POLL_DEADLINE_SECONDS: how long opening one connection, or one read of a mailbox, may take
   * before the connection is closed (and opened again after a back-off).
   */
  imapPollDeadlineSeconds: number;
  /** IMAP_SYNC_CONCURRENCY (default 32): mailboxes read at once by one worker over their open connections. */
  imapSyncConcurrency: number;
  /** IMAP_LOGINS_PER_HOUR (default 12): connection attempts per mailbox and clock hour, across workers. */
  imapLoginsPerHour: number;
  /**
   * IMAP_LEASE_SECONDS (default 30): how long a worker's claim on a mailbox lasts without renewal
   * (renewed every third of it); a worker that dies hands its mailboxes over after this.
   */
  imapLeaseSeconds: number;
  /**
   * API_POLL_SECONDS (default 20): each inbox read through its provider's API (`transport: api`) is
   * asked for what is new at least this often (Gmail history, Graph delta); docs/provider-apis.md.
   */
  apiPollSeconds: number;
  /** API_POLL_CONCURRENCY (default 16): API mailbox reads under way at once in one worker. */
  apiPollConcurrency: number;
  /** DB_POOL_SIZE (default 20): connections in the process's PostgreSQL pool (src/database/data-source.ts). */
  dbPoolSize: number;
  logLevel: string;
  runMigrations: boolean;
  /**
   * IDEMPOTENCY_LEASE_SECONDS (default 60, the contract's bound): how long an Idempotency-Key claim
   * holds without renewal. Only tests lower it, to watch renewal without waiting a minute.
   */
  idempotencyLeaseSeconds: number;
  /** Dispatched events and finished webhook deliveries older than this are deleted. */
  eventRetentionDays: number;
  /** METRICS_TOKEN: when set, GET /metrics requires `Authorization: Bearer <token>` (401 otherwise). */
  metricsToken: string;
  /**
   * METRICS_PUBLIC=true (exactly): GET /metrics answers without a token when METRICS_TOKEN is unset.
   * Otherwise a process without METRICS_TOKEN answers every scrape 401: closed unless opened.
   */
  metricsPublic: boolean;
  /**
   * METRICS_PORT: the worker role's own listener for GET /metrics (and /health/live), which has no
   * HTTP server otherwise; 0 or unset = none. Processes with the API serve /metrics on PORT.
   */
  metricsPort: number;
  /** METRICS_WORKSPACE_LABELS=true adds a `workspace_id` label to the per-workspace counters (opt-in). */
  metricsWorkspaceLabels: boolean;
  /** SHUTDOWN_TIMEOUT_SECONDS (default 25): after SIGTERM/SIGINT the process exits by then at the latest. */
  shutdownTimeoutSeconds: number;
  /** OAuth 2.0 providers (OAUTH_GOOGLE_*, OAUTH_MICROSOFT_*, GOOGLE_SMTP_HOST, ...): config/mail-providers.ts. */
  mailProviders: Record<OAuthProviderName, MailProviderConfig>;
  /** DNS_SERVERS (ip[:port], comma-separated) for sending-domain health; empty = the system's resolver. */
  dnsServers: string[];
  /** DKIM_SELECTORS: selectors health looks for besides the provider's own. */
  dkimSelectors: string[];
  /**
   * VERIFY_ADDRESSES (default true): contacts' addresses are checked in the background and the send
   * engine skips the verdicts a campaign's `verification` setting names. false, for installations
   * without usable DNS: nothing is checked (the `contact-verification` loop does not run) and the
   * engine treats every contact as `unknown`, i.e. sends (docs/verification.md).
   */
  verifyAddresses: boolean;
  /** VERIFY_SMTP_PROBE and its settings (config/verify-probe.ts, docs/verification.md); off by default. */
  verifyProbe: VerifyProbeSettings;
  /**
   * The operator's AI provider keys and API roots (CONTRACT §20): `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
   * `ANTHROPIC_…`, `GOOGLE_…` (or `GEMINI_API_KEY`), `MISTRAL_…`. Used for reply categories of the
   * workspaces whose `ai_provider` names that provider.
   */
  ai: {
    apiKeys: Partial<Record<AiProvider, string>>;
    baseUrls: Partial<Record<AiProvider, string>>;
    /** AI_TIMEOUT_MS (default and at most 10,000, the contract's bound): only tests lower it. */
    timeoutMs: number;
    /** AI_DAILY_LIMIT_MAX: the highest `ai_daily_limit` a workspace may set (default 10,000). */
    dailyLimitMax: number;
    /** AI_MODELS: the models allowed per provider (config/ai-models.ts); unset: any of the allowed shape. */
    models: { allowed: AiModelAllowList; restricted: boolean };
  };
}

export type AiProvider = 'openai' | 'anthropic' | 'google' | 'mistral';

const AI_ENV_PREFIXES: ReadonlyArray<[AiProvider, string]> = [
  ['openai', 'OPENAI'],
  ['anthropic', 'ANTHROPIC'],
  ['google', 'GOOGLE'],
  ['mistral', 'MISTRAL'],
];

function aiSettings(env: NodeJS.ProcessEnv): AppConfig['ai'] {
  const apiKeys: AppConfig['ai']['apiKeys'] = {};
  const baseUrls: AppConfig['ai']['baseUrls'] = {};
  for (const [provider, prefix] of AI_ENV_PREFIXES) {
    const key = env[`${prefix}_API_KEY`] || (provider === 'google' ? env.GEMINI_API_KEY : undefined);
    if (key) apiKeys[provider] = key;
    const baseUrl = env[`${prefix}_BASE_URL`];
    if (baseUrl) baseUrls[provider] = baseUrl;
  }
  return {
    apiKeys,
    baseUrls,
    timeoutMs: intVar(env, 'AI_TIMEOUT_MS', 10_000, 100, 10_000),
    dailyLimitMax: intVar(
      env,
      'AI_DAILY_LIMIT_MAX',
      AI_DAILY_LIMIT_MAX_DEFAULT,
      0,
      AI_DAILY_LIMIT_MAX_CEILING,
    ),
    models: withConfigErrors(() => parseAiModels(env.AI_MODELS)),
  };
}

export { ConfigError };

/** OAUTH_RETURN_ORIGINS, each an http(s) origin (scheme, host, port; no path); see `oauthReturnOrigins`. */
function returnOrigins(env: NodeJS.ProcessEnv, publicUrl: string, port: number): string[] {
  const listed = listVar(env, 'OAUTH_RETURN_ORIGINS');
  if (listed.length === 0) {
    if (env.PUBLIC_URL) return [new URL(publicUrl).origin];
    return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
  }
  return listed.map((raw) => {
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || raw.replace(/\/+$/, '') !== url.origin) {
      throw new ConfigError(
        `OAUTH_RETURN_ORIGINS entry "${raw}" must be an origin such as https://app.example.com (no path)`,
      );
    }
    return url.origin;
  });
}

function listVar(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value)
    throw new ConfigError(`${name} is required (set it, or leave DATABASE_URL unset for embedded mode)`);
  return value;
}

export function parseEncryptionKey(raw: string, name = 'ENCRYPTION_KEY'): Buffer {
  const trimmed = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes, as 64 hex characters or base64`);
  return key;
}

/**
 * ENCRYPTION_KEYS (newest first) when set, else ENCRYPTION_KEY. Two entries with the same key id
 * (the same key twice, or an 8-hex-character id collision) are refused: every key must be nameable.
 */
export function parseEncryptionKeys(env: NodeJS.ProcessEnv): Buffer[] {
  const list = listVar(env, 'ENCRYPTION_KEYS');
  if (!list.length) {
    if (!env.ENCRYPTION_KEY)
      throw new ConfigError(
        'ENCRYPTION_KEY (or ENCRYPTION_KEYS) is required (set it, or leave DATABASE_URL unset for embedded mode)',
      );
    return [parseEncryptionKey(env.ENCRYPTION_KEY)];
  }
  const keys = list.map((raw, i) => parseEncryptionKey(raw, `ENCRYPTION_KEYS entry ${i + 1}`));
  const ids = keys.map((k) => createHash('sha256').update(k).digest('hex').slice(0, 8));
  const dup = ids.findIndex((id, i) => ids.indexOf(id) !== i);
  if (dup >= 0)
    throw new ConfigError(`ENCRYPTION_KEYS entry ${dup + 1} repeats the key id of an earlier entry`);
  return keys;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: NodeJS.ProcessEnv): string {
  const level = (env.LOG_LEVEL || 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const role = (env.APP_ROLE ?? 'all') as AppRole;
  if (!['all', 'api', 'worker'].includes(role)) throw new ConfigError('APP_ROLE must be all, api or worker');
  const schedule = listVar(env, 'WEBHOOK_RETRY_SCHEDULE');
  const retry = schedule.length ? schedule.map(Number) : [0, 30, 300, 1800, 7200];
  if (retry.length !== 5 || retry.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE must be five non-negative numbers of seconds');
  }
  const encryptionKeys = parseEncryptionKeys(env);
  const pepper = required(env, 'API_KEY_PEPPER');
  if (pepper.length < 16) throw new ConfigError('API_KEY_PEPPER must be at least 16 characters');
  const imapPollSeconds = intVar(env, 'IMAP_POLL_SECONDS', 60, 1, 86_400);
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    databaseUrl: required(env, 'DATABASE_URL'),
    redisUrl: env.REDIS_URL ?? '',
    redisPrefix: env.REDIS_PREFIX || 'svc',
    publicUrl,
    oauthReturnOrigins: returnOrigins(env, publicUrl, port),
    apiKeyPepper: pepper,
    encryptionKey: encryptionKeys[0],
    encryptionKeys,
    trustProxy: listVar(env, 'TRUST_PROXY'),
    appRole: role,
    webhookAllowedTestHosts: listVar(env, 'WEBHOOK_ALLOWED_TEST_HOSTS').map((h) => h.toLowerCase()),
    webhookRetryScheduleSeconds: retry,
    sendTickMs: intVar(env, 'SEND_TICK_MS', 15000, 10, 86_400_000),
    sendMinGapSeconds: intVar(env, 'SEND_MIN_GAP_SECONDS', 60, 0, 86_400),
    sendLeaseSeconds: intVar(env, 'SEND_LEASE_SECONDS', 600, 3, 86_400),
    imapPollSeconds,
    imapPollConcurrency: intVar(env, 'IMAP_POLL_CONCURRENCY', 4, 1, 64),
    // At most one poll interval (so a hung server delays the others by at most that), 10..120 s.
    imapPollDeadlineSeconds: intVar(
      env,
      'IMAP_POLL_DEADLINE_SECONDS',
      Math.min(Math.max(imapPollSeconds, 10), 120),
      1,
      3600,
    ),
    imapSyncConcurrency: intVar(env, 'IMAP_SYNC_CONCURRENCY', 32, 1, 64),
    imapLoginsPerHour: intVar(env, 'IMAP_LOGINS_PER_HOUR', 12, 1, 3600),
    imapLeaseSeconds: intVar(env, 'IMAP_LEASE_SECONDS', 30, 10, 600),
    apiPollSeconds: intVar(env, 'API_POLL_SECONDS', 20, 1, 86_400),
    apiPollConcurrency: intVar(env, 'API_POLL_CONCURRENCY', 16, 1, 256),
    dbPoolSize: intVar(env, 'DB_POOL_SIZE', 20, 1, 1000),
    logLevel: logLevel(env),
    runMigrations: env.RUN_MIGRATIONS !== 'false',
    idempotencyLeaseSeconds: intVar(env, 'IDEMPOTENCY_LEASE_SECONDS', 60, 1, 60),
    eventRetentionDays: intVar(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    metricsToken: env.METRICS_TOKEN ?? '',
    metricsPublic: env.METRICS_PUBLIC === 'true',
    metricsPort: intVar(env, 'METRICS_PORT', 0, 0, 65535),
    metricsWorkspaceLabels: env.METRICS_WORKSPACE_LABELS === 'true',
    shutdownTimeoutSeconds: intVar(env, 'SHUTDOWN_TIMEOUT_SECONDS', 25, 1, 600),
    mailProviders: withConfigErrors(() => loadMailProviders(env)),
    dnsServers: withConfigErrors(() => parseDnsServers(env.DNS_SERVERS)),
    dkimSelectors: listVar(env, 'DKIM_SELECTORS').map((s) => s.toLowerCase()),
    verifyAddresses: env.VERIFY_ADDRESSES !== 'false',
    verifyProbe: verifyProbeSettings(env, publicUrl),
    ai: aiSettings(env),
  };
}

function withConfigErrors<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err));
  }
}

let current: AppConfig | undefined;

/** The process-wide configuration; loaded on first use. */
export function appConfig(): AppConfig {
  current ??= loadConfig();
  return current;
}

/** For tests and the embedded bootstrap, which set the environment first. */
export function resetConfig(): void {
  current = undefined;
}

export const runsApi = (): boolean => appConfig().appRole !== 'worker';
export const runsWorkers = (): boolean => appConfig().appRole !== 'api';
