/**
 * Message-IDs that may identify the sent mail an incoming one is about: In-Reply-To and References,
 * and for a report (bounce or complaint) any Message-ID quoted in its body. Pure.
 */
import type { ParsedMail } from 'mailparser';

const MESSAGE_ID_HEADER = /^Message-ID:\s*(<[^>\s]+>)/gim;

/**
 * Message-IDs that may identify the mail this one answers: In-Reply-To and References, and for a
 * report (a delivery-status bounce or a feedback report) the Message-ID of the returned original
 * (in a message/rfc822 or text/rfc822-headers part, or inline in the body: mailparser renders an
 * inline message/rfc822 part into the text without its Message-ID, so the raw body is read too).
 */
export function referencedMessageIds(mail: ParsedMail, raw: Buffer, report: boolean): string[] {
  const ids: string[] = [];
  const add = (v: string | string[] | undefined): void => {
    for (const s of Array.isArray(v) ? v : v ? [v] : []) {
      for (const id of s.match(/<[^>\s]+>/g) ?? []) ids.push(id);
    }
  };
  add(mail.inReplyTo);
  add(mail.references);
  if (report) {
    for (const a of mail.attachments) {
      if (/rfc822/i.test(a.contentType)) {
        for (const m of a.content.toString('utf8').matchAll(MESSAGE_ID_HEADER)) ids.push(m[1]);
      }
    }
    const text = raw.toString('latin1');
    const bodyStart = text.search(/\r?\n\r?\n/);
    if (bodyStart >= 0) for (const m of text.slice(bodyStart).matchAll(MESSAGE_ID_HEADER)) ids.push(m[1]);
  }
  // Newest reference last in References; try the direct parent first.
  return [...new Set(ids)].slice(0, 100);
}
