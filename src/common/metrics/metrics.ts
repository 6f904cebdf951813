/**
 * The process's Prometheus metrics (prom-client), in one registry per process: what this process
 * counted (HTTP requests, sends, webhook attempts, import rows, IMAP polls), Node's process metrics
 * (collectDefaultMetrics), and gauges read from PostgreSQL and Redis when scraped (due-enrollment lag,
 * outbox backlog, queue depths), which `modules/metrics` fills in before rendering.
 *
 * Counters live where the work happens: a worker process counts its own sends, so each process that
 * works exposes its own /metrics (the API on PORT, a worker on METRICS_PORT) and Prometheus sums the
 * processes. No label carries a workspace id unless METRICS_WORKSPACE_LABELS=true (one series per
 * workspace can be a lot of series; an operator opts in).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface MetricsOptions {
  /** Adds `workspace_id` to the per-workspace counters. */
  workspaceLabels: boolean;
}

/** Latency buckets (seconds) of HTTP requests: 5 ms … 10 s. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Every metric the service defines, built on one registry. */
export function buildMetrics(registry: Registry, options: MetricsOptions) {
  const ws = (names: string[]): string[] => (options.workspaceLabels ? [...names, 'workspace_id'] : names);
  const registers = [registry];
  return {
    options,
    httpRequests: new Counter({
      name: 'outreach_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'outreach_http_request_duration_seconds',
      help: 'HTTP request latency (request received to response finished), by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    }),
    sends: new Counter({
      name: 'outreach_sends_total',
      help: 'Messages handed to the send path (sequence steps and manual replies), by outcome (sent, bounced, failed = outcome unknown, deferred, skipped)',
      labelNames: ws(['outcome']),
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'outreach_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (succeeded, or the failure class: http_status, timeout, connection, tls, blocked_target, …)',
      labelNames: ws(['outcome']),
      registers,
    }),
    importRows: new Counter({
      name: 'outreach_import_rows_total',
      help: 'Import rows processed, by result (created, updated, skipped, failed)',
      labelNames: ws(['result']),
      registers,
    }),
    imapPolls: new Counter({
      name: 'outreach_imap_polls_total',
      help: 'Reads of one mailbox over its IMAP connection, by outcome (polled, abandoned = past IMAP_POLL_DEADLINE_SECONDS, failed; busy and not_polled are no longer counted)',
      labelNames: ['outcome'],
      registers,
    }),
    imapMailboxes: new Gauge({
      name: 'outreach_imap_mailboxes',
      help: 'Mailboxes this worker holds the lease of, by state: idle (connected, new mail by IDLE), poll (connected, server without IDLE: NOOP and reads every IMAP_POLL_SECONDS), leased (all it holds, connected or not)',
      labelNames: ['state'],
      registers,
    }),
    imapLogins: new Counter({
      name: 'outreach_imap_logins_total',
      help: 'IMAP connections opened (connect, login, select), by outcome (ok, failed)',
      labelNames: ['outcome'],
      registers,
    }),
    imapArrivalToIngestion: new Histogram({
      name: 'outreach_imap_arrival_to_ingestion_seconds',
      help: "Time from a mail's arrival in the mailbox (its IMAP INTERNALDATE, whole seconds) to its ingestion",
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    replyCategories: new Counter({
      name: 'outreach_reply_categories_total',
      help: 'Replies categorised by the reply-categorize sweep, by source (rules, ai) and fallback (none, or why the rules decided although an AI provider was set: no_model, invalid_model, no_key, empty_reply, daily_limit, timeout, error, invalid_answer)',
      labelNames: ws(['source', 'fallback']),
      registers,
    }),
    dueLag: new Gauge({
      name: 'outreach_due_enrollments_lag_seconds',
      help: 'Age of the oldest step still due (active enrollment of an active campaign, next_step_at in the past); 0 when none is due; NaN when the database did not answer',
      registers,
    }),
    outboxBacklog: new Gauge({
      name: 'outreach_outbox_backlog_events',
      help: 'Events not yet dispatched to webhook deliveries (counted up to 100,000)',
      registers,
    }),
    outboxOldest: new Gauge({
      name: 'outreach_outbox_oldest_event_age_seconds',
      help: 'Age of the oldest undispatched event; 0 when none is waiting',
      registers,
    }),
    queueJobs: new Gauge({
      name: 'outreach_queue_jobs',
      help: 'Bull queue depth, by queue and state (waiting, active, delayed, failed)',
      labelNames: ['queue', 'state'],
      registers,
    }),
    gaugeReads: new Counter({
      name: 'outreach_metrics_gauge_reads_total',
      help: 'Times a scrape read the gauges from PostgreSQL and Redis (at most once a second, however many scrapes)',
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof buildMetrics>;

/** The label values known in advance, exported at 0 from the start so rate() has a first sample. */
export const KNOWN_OUTCOMES = {
  sends: ['sent', 'bounced', 'failed', 'deferred', 'skipped', 'stopped', 'paused', 'error'],
  webhookDeliveries: [
    'succeeded',
    'http_status',
    'redirect',
    'timeout',
    'oversized_response',
    'connection',
    'tls',
    'blocked_target',
    'internal',
  ],
  importRows: ['created', 'updated', 'skipped', 'failed'],
  imapPolls: ['polled', 'busy', 'not_polled', 'abandoned', 'failed'],
  imapLogins: ['ok', 'failed'],
  imapMailboxes: ['idle', 'poll', 'leased'],
};

function initKnown(m: Metrics): void {
  if (m.options.workspaceLabels) return; // the workspaces are not known in advance
  for (const outcome of KNOWN_OUTCOMES.sends) m.sends.inc({ outcome }, 0);
  for (const outcome of KNOWN_OUTCOMES.webhookDeliveries) m.webhookDeliveries.inc({ outcome }, 0);
  for (const result of KNOWN_OUTCOMES.importRows) m.importRows.inc({ result }, 0);
  for (const outcome of KNOWN_OUTCOMES.imapPolls) m.imapPolls.inc({ outcome }, 0);
  for (const outcome of KNOWN_OUTCOMES.imapLogins) m.imapLogins.inc({ outcome }, 0);
  for (const state of KNOWN_OUTCOMES.imapMailboxes) m.imapMailboxes.set({ state }, 0);
}

/** The process's registry: Node's process metrics plus the service's own. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

let current: Metrics | undefined;

/**
 * The process's metrics, built on first use with METRICS_WORKSPACE_LABELS read from the environment
 * (app-config validates the rest of the environment; this must work before and without it).
 */
export function metrics(): Metrics {
  if (!current) {
    current = buildMetrics(registry, { workspaceLabels: process.env.METRICS_WORKSPACE_LABELS === 'true' });
    initKnown(current);
  }
  return current;
}

/** Labels of a per-workspace counter: the workspace id only when the operator opted in. */
export function workspaceLabels<T extends Record<string, string>>(
  labels: T,
  workspaceId: string | undefined,
): T & { workspace_id?: string } {
  return metrics().options.workspaceLabels ? { ...labels, workspace_id: workspaceId ?? '' } : labels;
}

/** Counts a send by its outcome. */
export function countSend(outcome: string, workspaceId?: string): void {
  metrics().sends.inc(workspaceLabels({ outcome }, workspaceId));
}

/** Counts a webhook delivery attempt: `succeeded`, or its failure class. */
export function countWebhookDelivery(outcome: string, workspaceId?: string): void {
  metrics().webhookDeliveries.inc(workspaceLabels({ outcome }, workspaceId));
}

/** Counts import rows processed in one chunk, by result. */
export function countImportRows(
  counts: { created: number; updated: number; skipped: number; failed: number },
  workspaceId?: string,
): void {
  const m = metrics().importRows;
  for (const result of ['created', 'updated', 'skipped', 'failed'] as const) {
    if (counts[result] > 0) m.inc(workspaceLabels({ result }, workspaceId), counts[result]);
  }
}

/** Counts an IMAP connection opened (or not). */
export function countImapLogin(outcome: 'ok' | 'failed'): void {
  metrics().imapLogins.inc({ outcome });
}

/** Observes a mail ingested from IMAP, by its arrival time in the mailbox. */
export function observeImapArrival(arrived: Date): void {
  const seconds = (Date.now() - arrived.getTime()) / 1000;
  if (Number.isFinite(seconds)) metrics().imapArrivalToIngestion.observe(Math.max(0, seconds));
}

/** The mailboxes this worker holds, by state. */
export function setImapMailboxes(counts: { idle: number; poll: number; leased: number }): void {
  const g = metrics().imapMailboxes;
  g.set({ state: 'idle' }, counts.idle);
  g.set({ state: 'poll' }, counts.poll);
  g.set({ state: 'leased' }, counts.leased);
}

/** Counts one read of a mailbox (an IMAP poll) by outcome. */
export function countImapPoll(outcome: string): void {
  metrics().imapPolls.inc({ outcome });
}
