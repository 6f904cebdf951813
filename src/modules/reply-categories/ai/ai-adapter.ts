/**
 * What every provider adapter takes and gives: the reply's own words in, one category or null out.
 * Null means "no usable answer" (anything outside the closed set); errors and timeouts throw. Either way
 * the caller falls back to the rules.
 */
import type { ReplyCategory } from '../../threads/reply-category.js';

export const AI_PROVIDER_NAMES = ['openai', 'anthropic', 'google', 'mistral'] as const;
export type AiProviderName = (typeof AI_PROVIDER_NAMES)[number];

export interface AiRequest {
  /** The reply without quoted history and signature (`replyText`), at most 4,000 characters. */
  text: string;
  model: string;
  apiKey: string;
  /** The provider's API root; the documented public one when absent. */
  baseUrl?: string;
  /** Aborts the HTTP request when the time bound is reached. */
  signal: AbortSignal;
  /** The SDK's own timeout, a backstop set a little past the signal's bound. */
  timeoutMs: number;
}

export type AiAdapter = (request: AiRequest) => Promise<ReplyCategory | null>;
