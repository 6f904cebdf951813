/**
 * The closed set of reply categories (CONTRACT §20) and where a category came from.
 */
export const REPLY_CATEGORIES = [
  'interested',
  'not_interested',
  'not_now',
  'wrong_person',
  'unsubscribe_request',
  'other',
] as const;

export type ReplyCategory = (typeof REPLY_CATEGORIES)[number];

/** `manual` is set by `PATCH /threads/{id}` (phase 2); this module decides `rules` or `ai`. */
export type CategorySource = 'rules' | 'ai' | 'manual';

const CATEGORY_SET: ReadonlySet<string> = new Set(REPLY_CATEGORIES);

export function isReplyCategory(value: unknown): value is ReplyCategory {
  return typeof value === 'string' && CATEGORY_SET.has(value);
}
