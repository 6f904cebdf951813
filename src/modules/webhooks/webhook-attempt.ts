/**
 * One delivery attempt, shared by the delivery worker and the endpoint test
 * (`POST /webhook-endpoints/{id}/test`): the target re-checked (every resolved address public,
 * WEBHOOK_ALLOWED_TEST_HOSTS aside) and pinned, the envelope signed with both schemes, posted through
 * the SSRF-safe client (webhook-http.ts: no redirects, bounded response, one deadline).
 */
import { signedHeaders } from './signing.js';
import { checkTarget, ResolveTimeoutError, UnsafeTargetError, type Resolver } from './target-guard.js';
import type { ClaimedRow } from './webhook-delivery.repository.js';
import type { AttemptOutcome, WebhookHttpClient } from './webhook-http.js';

/** The envelope's exact bytes: `data` is already JSON text (no parse and re-stringify). */
export function envelope(
  row: Pick<ClaimedRow, 'event_id' | 'event' | 'occurred_at' | 'workspace_id' | 'data'>,
): string {
  return (
    `{"id":${JSON.stringify(row.event_id)},"version":"v1","event":${JSON.stringify(row.event)},` +
    `"occurred_at":${JSON.stringify(row.occurred_at)},"workspace_id":${JSON.stringify(row.workspace_id)},` +
    `"data":${row.data}}`
  );
}

export type AttemptInput = Pick<
  ClaimedRow,
  'url' | 'event_id' | 'event' | 'occurred_at' | 'workspace_id' | 'data'
>;

/** Attempts one delivery of `row` with the endpoint's secret (`key`: its Standard Webhooks bytes). */
export async function attemptDelivery(
  row: AttemptInput,
  signing: { secret: string; key: Buffer },
  http: WebhookHttpClient,
  resolver: Resolver,
): Promise<AttemptOutcome> {
  let target;
  const started = Date.now();
  try {
    target = await checkTarget(row.url, resolver);
  } catch (err) {
    const timedOut = err instanceof ResolveTimeoutError;
    return {
      ok: false,
      statusCode: null,
      error: err instanceof UnsafeTargetError || timedOut ? err.message : 'target check failed',
      errorClass: timedOut ? 'timeout' : 'blocked_target',
      durationMs: Date.now() - started,
      excerpt: null,
    };
  }
  const body = envelope(row);
  const headers = signedHeaders(signing.secret, row.event_id, row.event, body, new Date(), signing.key);
  return http.post(target, headers, body);
}
