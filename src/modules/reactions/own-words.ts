/**
 * A reply's own words for the date reader: the quoted history removed (email-reply-parser, the
 * library the categoriser's `reply-categories/reply-text.ts` uses; that module imports this one's, so
 * it cannot be imported here), `>` lines dropped, at most 4,000 characters.
 */
import EmailReplyParser from 'email-reply-parser';

const parser = new EmailReplyParser();

export function replyOwnWords(body: string): string {
  const normalized = body.slice(0, 100_000).replace(/\r\n?/g, '\n');
  let visible: string;
  try {
    visible = parser.parseReply(normalized);
  } catch {
    visible = normalized;
  }
  return visible
    .split('\n')
    .filter((line) => !/^\s*>/.test(line) && !/^On .{0,200} wrote:\s*$/.test(line))
    .join('\n')
    .trim()
    .slice(0, 4000);
}
