/**
 * The reply a person wrote, without the quoted history under it and without the signature: what the
 * classifier reads and what may be sent to an AI provider (CONTRACT §20: quoted history removed, at most
 * 4,000 characters).
 *
 * The line-by-line work (`>` quotes, "On … wrote:" and its FR/ES/DE/IT/… siblings, "Sent from my
 * iPhone", "Best regards", "-- ") is done by `email-reply-parser` (Crisp's maintained port of GitHub's
 * email_reply_parser). Before it, this file cuts at the quote-block starts that library misses in the
 * four languages we classify (Outlook's unquoted "From:/Von:/De:" header blocks without an address in
 * brackets, "-----Mensaje original-----", a header split over two lines); after it, at the sign-offs it
 * does not know ("Mit freundlichen Grüßen", "Saludos", "Un saludo", "Atentamente", …).
 */
import EmailReplyParser from 'email-reply-parser';

export const REPLY_TEXT_MAX_CHARS = 4000;

/** How much of a body is read at all (a long quoted thread must not cost more). */
const REPLY_SCAN_MAX_CHARS = 100_000;

/** A line that begins the quoted original, whatever follows it. */
const QUOTE_START_LINES: readonly RegExp[] = [
  // -----Original Message----- and its translations, with or without the dashes' exact count.
  /^\s*-{2,}\s*(original message|ursprüngliche nachricht|originalnachricht|message d'origine|mensaje original|mensaje reenviado|forwarded message|weitergeleitete nachricht|message transféré)\s*-{2,}\s*$/i,
  // "On Tue, 3 Mar 2026 at 10:15, Anna <a@b> wrote:" (one line), and Apple Mail's "> On … wrote:".
  /^\s*>?\s*On\s.{4,200}\bwrote:\s*$/i,
  /^\s*>?\s*Am\s.{4,200}\bschrieb\b.{0,200}:\s*$/i,
  /^\s*>?\s*Le\s.{4,200}\ba\s+écrit\s*:\s*$/i,
  /^\s*>?\s*El\s.{4,200}\bescribió\s*:\s*$/i,
  /^\s*.{1,120}<[^<>\s]+@[^<>\s]+>\s+(wrote|schrieb|a écrit|escribió)\s*:\s*$/i,
  // Outlook's separator line before its header block.
  /^\s*_{10,}\s*$/,
];

/** The first line of a header block: From / Von / De / Da followed by a name or an address. */
const HEADER_FROM = /^\s*\*?(from|von|de|da)\s?\*?\s?:\s*\S/i;
/** The header lines that follow it in an Outlook block (EN/DE/FR/ES). */
const HEADER_NEXT =
  /^\s*\*?(sent|date|to|cc|subject|gesendet|datum|an|betreff|envoyé|date|à|objet|enviado( el)?|fecha|para|asunto)\s?\*?\s?:/i;

/** A line opening a two-line header: "On Tue, 3 Mar 2026 at 10:15, Anna Becker" + "<a@b> wrote:". */
const SPLIT_HEADER_FIRST = /^\s*(On|Am|Le|El)\s.{4,200}$/;
const SPLIT_HEADER_SECOND = /^.{0,200}\b(wrote|schrieb.{0,200}|a écrit|escribió)\s*:\s*$/i;

/** Sign-offs: the line and everything after it is the signature (only when a line holds nothing else). */
const SIGN_OFF_LINES: readonly RegExp[] = [
  /^\s*(mit\s+)?(freundlichen|freundliche|besten|herzlichen|herzliche|vielen|liebe|viele|beste|schöne|sonnige)\s+gr(ü|ue|u)(ß|ss)(e|en)?(\s+aus\s+.{1,40})?\s*[,.!]?\s*$/i,
  /^\s*(mfg|vg|lg|bg|gruß|grüße|gruss|grüsse)(\s+aus\s+.{1,40})?\s*[,.!]?\s*$/i,
  /^\s*(un\s+)?(cordial\s+)?saludos?(\s+cordiales)?\s*[,.!]?\s*$/i,
  /^\s*(atentamente|un abrazo|muchas gracias y saludos)\s*[,.!]?\s*$/i,
  /^\s*(bien\s+|très\s+)?(cordialement|amicalement|bien à vous|salutations|bonne journée|bonne soirée|cdlt|cdt|bàv|bav|a\+|à\+|à bientôt|a bientot)\s*[,.!]?\s*$/i,
  /^\s*(best|kind|warm|warmest)(\s+regards|\s+wishes)?\s*[,.!]?\s*$/i,
  /^\s*(regards|thanks and regards|many thanks|cheers|sincerely|yours sincerely|yours truly|all the best)\s*[,.!]?\s*$/i,
  /^\s*(sent from my|von meinem|envoyé de mon|enviado desde mi)\s.{1,60}$/i,
  // A bare thank-you on its own line under the text is the sign-off ("Thanks!\nChris").
  /^\s*(thanks|thank you|many thanks|thx|ty|danke|vielen dank|danke schön|merci|merci beaucoup|gracias|muchas gracias)\s*[,.!]*\s*$/i,
  // Legal footers: everything from them on is boilerplate.
  /^\s*(confidentiality notice|disclaimer|this (e-?mail|message)( and any attachments)? (is|are|may|contains)|diese (e-?mail|nachricht) (enthält|ist|kann)|ce (message|courriel|mail) (et|est|peut|contient)|este (mensaje|correo)( electrónico)? (y|es|puede|contiene))\b/i,
];

function firstQuoteStart(lines: readonly string[]): number {
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (QUOTE_START_LINES.some((re) => re.test(line))) return i;
    const next = lines.slice(i + 1, i + 4);
    if (HEADER_FROM.test(line) && next.some((l) => HEADER_NEXT.test(l))) return i;
    // Clients that put "Sent:" or "Date:" first: three header lines in a row.
    if (HEADER_NEXT.test(line) && next.slice(0, 2).every((l) => HEADER_NEXT.test(l) || HEADER_FROM.test(l)))
      return i;
    if (SPLIT_HEADER_FIRST.test(line) && SPLIT_HEADER_SECOND.test(lines[i + 1] ?? '')) return i;
  }
  return lines.length;
}

function firstSignOff(lines: readonly string[]): number {
  // A sign-off on the very first line is the whole reply ("Best, no thanks" never starts a line alone).
  for (let i = 1; i < lines.length; i += 1) {
    if (SIGN_OFF_LINES.some((re) => re.test(lines[i] ?? ''))) return i;
  }
  return lines.length;
}

const parser = new EmailReplyParser();

/**
 * The visible reply: quoted history and signature removed, whitespace tidied, at most
 * {@link REPLY_TEXT_MAX_CHARS} characters. Empty when nothing of the person's own words remains.
 */
export function replyText(body: string): string {
  // The reply's own words are at the top: what lies past the first 100,000 characters is history.
  const normalized = body
    .slice(0, REPLY_SCAN_MAX_CHARS)
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ');
  const lines = normalized.split('\n');
  const own = lines.slice(0, firstQuoteStart(lines)).join('\n');
  let visible: string;
  try {
    visible = parser.parseReply(own);
  } catch {
    visible = own;
  }
  // The library keeps a reply that is all quote as empty; keep ours then only if it had no `>` lines.
  const kept = visible.split('\n').filter((line) => !/^\s*>/.test(line));
  const text = kept
    .slice(0, firstSignOff(kept))
    .join('\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text.length > REPLY_TEXT_MAX_CHARS ? text.slice(0, REPLY_TEXT_MAX_CHARS) : text;
}
