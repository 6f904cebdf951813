/**
 * Typed configuration, read and validated once at start-up (CONTRACT §10).
 * Everything else asks `appConfig()`; nothing reads process.env directly.
 */
export type AppRole = 'all' | 'api' | 'worker';

export interface AppConfig {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** Empty in processes that need no Redis (the admin CLI). */
  /** Prefix for every Redis key this process writes (Bull queues, rate limits). */
  redisPrefix: string;
  publicUrl: string;
  apiKeyPepper: string;
  encryptionKey: Buffer;
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
  imapPollSeconds: number;
  logLevel: string;
  runMigrations: boolean;
}

export class ConfigError extends Error {}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
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

export function parseEncryptionKey(raw: string): Buffer {
  const trimmed = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32)
    throw new ConfigError('ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
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
  const pepper = required(env, 'API_KEY_PEPPER');
  if (pepper.length < 16) throw new ConfigError('API_KEY_PEPPER must be at least 16 characters');
  return {
    port,
    databaseUrl: required(env, 'DATABASE_URL'),
    redisUrl: env.REDIS_URL ?? '',
    redisPrefix: env.REDIS_PREFIX || 'svc',
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    apiKeyPepper: pepper,
    encryptionKey: parseEncryptionKey(required(env, 'ENCRYPTION_KEY')),
    trustProxy: listVar(env, 'TRUST_PROXY'),
    appRole: role,
    webhookAllowedTestHosts: listVar(env, 'WEBHOOK_ALLOWED_TEST_HOSTS').map((h) => h.toLowerCase()),
    webhookRetryScheduleSeconds: retry,
    sendTickMs: intVar(env, 'SEND_TICK_MS', 15000, 10, 86_400_000),
    sendMinGapSeconds: intVar(env, 'SEND_MIN_GAP_SECONDS', 60, 0, 86_400),
    sendLeaseSeconds: intVar(env, 'SEND_LEASE_SECONDS', 600, 3, 86_400),
    imapPollSeconds: intVar(env, 'IMAP_POLL_SECONDS', 60, 1, 86_400),
    logLevel: env.LOG_LEVEL || 'info',
    runMigrations: env.RUN_MIGRATIONS !== 'false',
  };
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
