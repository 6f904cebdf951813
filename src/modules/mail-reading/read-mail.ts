/**
 * Reads one incoming mail (parsed by mailparser) as what it is: a bounce, a complaint, a delivery
 * notice, an auto-reply or a person's reply (CONTRACT §18). Pure: no database, no network.
 *
 * 1. The report and the quoted original are found wherever a mail system puts them: a
 *    `multipart/report`, a `message/delivery-status` part attached as text or inline, a plain-text
 *    notice with the original below a marker line, an attached `message/rfc822` or
 *    `text/rfc822-headers`, an SNS JSON notification.
 * 2. The kind is decided in an order that never takes a report for a person: complaint, then
 *    delivery report (bounce or delivery notice), then auto-reply, then reply.
 * 3. For a bounce, the format readers (`formats/`) pull the failed recipients, and `decideReason`
 *    (`reason.ts`) decides each one's reason.
 *
 * Every text is scanned only up to SCAN_LIMIT characters, and every pattern is linear, so a 10 MB
 * report reads in bounded time and memory.
 */
import type { ParsedMail } from 'mailparser';
import { sesNotification, type SesNotification } from './formats/amazon-ses.js';
import { ADDRESS, SCAN_LIMIT, type ReportView } from './formats/format.js';
import { readFailedRecipients } from './formats/index.js';
import { decideReason } from './reason.js';
import type { BounceVerdict, MailReading } from './types.js';

/** A top-level header as text (mailparser gives structured values for some). */
export function headerText(mail: ParsedMail, name: string): string | null {
  const v: unknown = mail.headers.get(name);
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(String).join(', ');
  if (typeof v === 'object') {
    const o = v as { text?: unknown; value?: unknown };
    if (typeof o.text === 'string') return o.text;
    if (typeof o.value === 'string') return o.value;
  }
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
}

function contentType(mail: ParsedMail): { type: string; reportType: string } {
  const ct = mail.headers.get('content-type') as
    { value?: unknown; params?: Record<string, unknown> } | undefined;
  if (!ct || typeof ct !== 'object') return { type: '', reportType: '' };
  return {
    type: String(ct.value ?? '').toLowerCase(),
    reportType: String(ct.params?.['report-type'] ?? '').toLowerCase(),
  };
}

const bounded = (s: string | null | undefined): string => (s ?? '').slice(0, SCAN_LIMIT);

/**
 * Where a plain-text report stops and the quoted original begins (qmail, Exim, Gmail, Exchange, ...),
 * or the first header line of an original quoted without a marker.
 */
const ORIGINAL_MARKER =
  /^[ \t]*(?:-{2,}.{0,20}(?:below this line is a copy of the message|this is a copy of the message|original message|original message follows|returned message|message header follows|unsent message below|headers of the original message|message text follows)|(?:original message:?[ \t]*$|original mail as follows:?|original message headers|-{3,} ?original message ?-{3,}|the headers of the original message|-+ ?the header of the original message is following)|(?:return-path|received|dkim-signature|x-received|arc-seal|authentication-results)[ \t]*:)/im;

export function reportText(mail: ParsedMail, raw: string): string {
  const text = bodyText(mail, raw);
  const cut = ORIGINAL_MARKER.exec(text);
  return cut ? text.slice(0, cut.index) : text;
}

/**
 * The text body, the HTML rendered as text, or, when mailparser found neither (a broken MIME
 * structure), the raw body itself.
 */
function bodyText(mail: ParsedMail, raw: string): string {
  if (mail.text?.trim()) return bounded(mail.text);
  if (typeof mail.html === 'string' && mail.html.trim())
    return bounded(mail.html).replace(/<[^>]{0,2000}>/g, ' ');
  const start = raw.search(/\r?\n\r?\n/);
  return start >= 0 ? raw.slice(start) : '';
}

const isPart = (re: RegExp) => (a: ParsedMail['attachments'][number]) => re.test(a.contentType);
const partText = (a: ParsedMail['attachments'][number]): string =>
  a.content.subarray(0, SCAN_LIMIT).toString('utf8');
/** At most this many parts of one kind are read (a report has one or two; a forged one may have thousands). */
const MAX_PARTS = 10;
/** The bounded texts of the first parts whose type matches. */
const partTexts = (mail: ParsedMail, re: RegExp): string[] =>
  mail.attachments.filter(isPart(re)).slice(0, MAX_PARTS).map(partText);

function view(mail: ParsedMail, raw: string): ReportView {
  const dsParts = mail.attachments
    .filter(
      (a) =>
        /delivery-status/i.test(a.contentType) ||
        (/^text\/plain/i.test(a.contentType) && a.content.length < SCAN_LIMIT),
    )
    .slice(0, MAX_PARTS)
    .map(partText);
  return {
    subject: mail.subject ?? '',
    from: headerText(mail, 'from') ?? '',
    header: (name) => headerText(mail, name),
    text: reportText(mail, raw),
    deliveryStatus: [...dsParts, bounded(mail.text), raw],
    raw,
  };
}

// ---- what kind of mail ----

const DAEMON_SENDER =
  /(?:^|[\s<"(])(?:mailer[-_]?daemon|postmaster|poostmaster|post_master|mail[-._ ]?delivery[-._ ]?(?:system|subsystem|service)|mmsc|mdaemon|mail-?daemon)\b/i;
const BOUNCE_SUBJECT =
  /undeliver|undelivered|delivery (?:status notification|failure|failed|has failed|problem|error|notification)|mail delivery failed|failure (?:notice|delivery)|failed delivery|delivery failure|returned mail|returning message|non[- ]?delivery|could not be delivered|couldn't be delivered|not (?:be )?delivered|mail system error|mail failed|message you sent blocked|could not send message|delayed mail|delivery delayed|error sending your mail|returned to sender|unzustellbar|non recapitabile|non remis|no se puede entregar|onbestelbaar|недоставленное|не доставлено|配信(?:エラー|不能)|送信エラー|エラー通知|rejected:|message blocked|loop alert|mail loop|loop detected/i;
const PERSON_SUBJECT = /^\s*(?:re|aw|sv|vs|antw|r[eé]f|fwd?|wg|tr)\s*:/i;
const BOUNCE_TEXT =
  /could not be delivered|couldn't be delivered|wasn't delivered|undeliverable|delivery (?:has )?failed|permanent (?:error|failure)|following address(?:es)? failed|failed permanently|unable to deliver|user unknown|mailbox (?:is )?full|no such user/i;
const DELAY_SUBJECT =
  /\(delay\)|delayed|still being retried|could not send message for past|warning:.*(?:not (?:yet )?been delivered|delay)|delivery delayed/i;
const DELAY_TEXT =
  /has not (?:yet )?been delivered|not been able to deliver|will (?:continue|keep) (?:trying|to try|retrying)|will retry|is still trying|delivery is delayed|delivery (?:has been )?delayed|still being retried|temporary (?:problem|failure)|warning message only|do not need to resend/i;
/** Words of a final failure in a report's text: no delay notice says them. */
const FINAL_BODY =
  /permanent (?:error|failure|fatal)|failed permanently|given up|giving up|not going to try again|will not be (?:retried|delivered)|no further (?:attempts|retries)/i;
const FINAL_TEXT =
  /permanent|failed permanently|could not be delivered|couldn't be delivered|wasn't delivered|undeliverable|given up|giving up|rejected|returning message/i;

function complaintSignal(mail: ParsedMail, raw: string, ses: SesNotification | null): boolean {
  if (contentType(mail).reportType === 'feedback-report') return true;
  if (mail.attachments.some(isPart(/feedback-report/i))) return true;
  if (/^content-type:[ \t]*message\/feedback-report/im.test(raw)) return true;
  if (ses?.notificationType?.toLowerCase() === 'complaint') return true;
  // The original forwarded as message/rfc822 with a feedback header (Hotmail's JMRP, and the like).
  return /^(?:x-hmxmroriginalrecipient|feedback-type)[ \t]*:/im.test(rfc822Texts(mail, raw).join('\n'));
}

/**
 * Addresses mail software sends its reports from: the MTA's own (RFC 5321 §4.5.5: MAILER-DAEMON,
 * postmaster) and mailing-list managers' (fml's `-admin`, Mailman's `-bounces`/`-owner`/`-request`,
 * Majordomo's `owner-`, LISTSERV, Sympa, ezmlm).
 */
const DAEMON_ADDRESS = /(?:^|[\s<"(])(?:mailer[-_]?daemon|postmaster|mail[-_]?daemon|mdaemon)@/i;
const LIST_SOFTWARE_ADDRESS =
  /(?:^|[\s<"(])(?:owner-[^\s@<>"]{1,64}|[^\s@<>"]{1,64}-(?:owner|admin|request|bounces?|errors?)|fml|majordomo|listserv|mailman|sympa|ezmlm)@/i;
/**
 * Headers list software writes on what it sends (RFC 2369, RFC 2919, fml, Mailman); mailparser gathers
 * the `List-*` ones under `list`.
 */
const LIST_HEADERS = [
  'list-id',
  'list-post',
  'list-unsubscribe',
  'x-mlserver',
  'x-ml-name',
  'x-beenthere',
  'x-mailman-version',
  'mailing-list',
];
/** Words of a report: a failed delivery, or list software refusing or looping a post. */
const REPORT_WORDS =
  /could not be delivered|couldn't be delivered|wasn't delivered|undeliverable|delivery (?:has )?failed|permanent (?:error|failure|fatal)|following address(?:es)? failed|failed permanently|unable to deliver|user unknown|unknown user|no such user|mailbox (?:is )?full|not a member|(?:post|message|mail|article) (?:was |has been )?rejected|\breject(?:ed)? mail|loop (?:alert|detected|back warning)|duplicated message-id|security alert/i;
/**
 * Sentences only mail software writes at the start of a line (Sendmail, Postfix, qmail, Exim and
 * its kin, fml): quoted by a person they start with `>`.
 */
const MTA_REPORT_BODY =
  /^[ \t]*-*[ \t]*(?:transcript of session follows|the following addresses had permanent fatal errors|this is the mail system at host|this message was created automatically by mail delivery software|hi\. this is the qmail-send program|i'm afraid i wasn't able to deliver your message|delivery to the following recipients? failed|original mail as follows)/im;

/**
 * Who sent it says it is mail software: a null reverse-path (RFC 5321 §4.5.5), a report address in
 * From, Sender or Return-Path, RFC 3834's Auto-Submitted, a list's Precedence, list software's own
 * header. Alone none of these makes a report (an auto-reply has most of them); with a report's
 * words they do.
 */
function machineSender(mail: ParsedMail): boolean {
  const returnPath = (headerText(mail, 'return-path') ?? '').trim();
  if (returnPath === '<>' || returnPath === '') {
    if (mail.headers.has('return-path')) return true;
  }
  const senders = ['from', 'sender', 'return-path'].map((h) => headerText(mail, h) ?? '');
  if (senders.some((v) => DAEMON_ADDRESS.test(v))) return true;
  // A list manager's address (`-admin`, `-request`, ...) only with a list's own header: a person's
  // `it-admin@` is a person.
  if (
    senders.some((v) => LIST_SOFTWARE_ADDRESS.test(v)) &&
    (mail.headers.has('list') || LIST_HEADERS.some((h) => mail.headers.has(h)))
  ) {
    return true;
  }
  const auto = headerText(mail, 'auto-submitted')?.trim().toLowerCase();
  if (auto && auto !== 'no') return true;
  const precedence = headerText(mail, 'precedence')?.trim().toLowerCase();
  if (precedence === 'bulk' || precedence === 'junk' || precedence === 'list') return true;
  return false;
}

function bounceSignal(mail: ParsedMail, raw: string, ses: SesNotification | null): boolean {
  const { reportType } = contentType(mail);
  if (reportType === 'delivery-status' || reportType === 'global-delivery-status') return true;
  if (mail.attachments.some(isPart(/delivery-status/i))) return true;
  if (/^content-type:[ \t]*message\/(?:global-)?delivery-status/im.test(raw)) return true;
  if (headerText(mail, 'x-failed-recipients')) return true;
  const sesKind = ses?.notificationType?.toLowerCase();
  if (sesKind === 'bounce' || sesKind === 'delivery') return true;
  const from = headerText(mail, 'from') ?? '';
  if (DAEMON_SENDER.test(from) || from.trim() === '' || /^<>$/.test(from.trim())) return true;
  // Who sent it, with a report's words, or mail software's own sentences: a report whatever the
  // subject says (a report is never a person's reply).
  const opening = bounded(mail.text).slice(0, 3000);
  if (machineSender(mail) && REPORT_WORDS.test(opening)) return true;
  if (MTA_REPORT_BODY.test(opening)) return true;
  // A report subject alone is not enough when a person answers a thread that has one ("Re: Undeliverable").
  if (PERSON_SUBJECT.test(mail.subject ?? '')) return false;
  if (BOUNCE_SUBJECT.test(mail.subject ?? '')) return true;
  // A notice that says so in its first lines and returns the original as an attachment.
  return BOUNCE_TEXT.test(bounded(mail.text).slice(0, 3000)) && rfc822Texts(mail, raw).length > 0;
}

/** Subject words only an automatic answer uses, wherever they stand. */
const AUTOMATIC_SUBJECT =
  /\b(?:out of (?:the )?office|automatic reply|auto[- ]?reply|autoreply|auto[- ]?response|auto[- ]?respond|vacation reply|abwesenheitsnotiz|automatische antwort|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica|automatisch antwoord|resposta autom[áa]tica|autosvar|автоответ|автоматический ответ)\b|自動返信|自動応答|自动回复|자동 응답/i;
/**
 * Words an absence notice starts with, but a person may write too ("Re: Absence management"): read
 * as an auto-reply only when the subject is not a person's `Re:`/`Fwd:`.
 */
const ABSENCE_SUBJECT =
  /\b(?:ooo|on vacation|on leave|on holiday|away from (?:the |my )?(?:office|desk)|away until|abwesenheit|abwesend|nicht im b[üu]ro|urlaub|absence|absent|fuera de la oficina|ausente|fuori ufficio|afwezig)\b|不在/i;

export function isAutoReply(mail: ParsedMail): boolean {
  // A read receipt (RFC 8098 disposition notification) is a machine's answer, not a person's.
  if (contentType(mail).reportType === 'disposition-notification') return true;
  if (mail.attachments.some(isPart(/disposition-notification/i))) return true;
  const auto = headerText(mail, 'auto-submitted');
  if (auto && auto.trim().toLowerCase() !== 'no') return true;
  for (const h of ['x-autoreply', 'x-autorespond', 'x-autoresponder', 'x-autogenerated', 'x-vacation']) {
    if (headerText(mail, h)) return true;
  }
  if (/^vacation$/i.test(headerText(mail, 'x-apple-action')?.trim() ?? '')) return true;
  const precedence = headerText(mail, 'precedence')?.trim().toLowerCase();
  if (precedence === 'auto_reply') return true;
  const subject = mail.subject ?? '';
  return AUTOMATIC_SUBJECT.test(subject) || (!PERSON_SUBJECT.test(subject) && ABSENCE_SUBJECT.test(subject));
}

// ---- the quoted original ----

/** Texts of attached originals (`message/rfc822`, `text/rfc822-headers`). */
function rfc822Texts(mail: ParsedMail, raw: string): string[] {
  const parts = partTexts(mail, ORIGINAL_PART);
  // Inline message/rfc822 parts mailparser renders into the text: read them from the raw body.
  const m =
    /^content-type:[ \t]*(?:message\/rfc822|text\/rfc822-headers|message\/global(?:-headers)?)[^\n]*\n/im.exec(
      raw,
    );
  if (m) parts.push(raw.slice(m.index + m[0].length));
  return parts;
}

/** Parts that quote the original: RFC 822 messages or headers, and their RFC 6533 `global` forms. */
const ORIGINAL_PART = /rfc822|^message\/global(?:-headers)?$/i;

/** A quoted `Message-ID:` line; some systems quote the id without its angle brackets (normalised). */
const MESSAGE_ID_LINE =
  /^[ \t>]*message-id[ \t]*:[ \t]*(?:\r?\n[ \t>]*[ \t])?(<[^>\s]{1,250}>|[^\s<>@]{1,200}@[^\s<>]{1,200})/gim;
const SES_MESSAGE_ID = /"(?:name"\s*:\s*"message-id"\s*,\s*"value|messageId)"\s*:\s*"(<[^>"\s]{1,250}>)"/gi;

/**
 * The quoted original's Message-IDs wherever quoted: attached or inline originals, headers-only
 * parts, text bodies, SES JSON. The report's own Message-ID and its own In-Reply-To/References are
 * not the original's (they are kept only when also quoted as the original's).
 */
export function originalMessageIds(
  mail: ParsedMail,
  raw: string,
  ses: SesNotification | null = null,
): string[] {
  const own = (mail.messageId ?? '').toLowerCase();
  const ids: string[] = [];
  // SES quotes the original's headers in its JSON.
  const sesId =
    ses?.mail?.commonHeaders?.messageId ??
    ses?.mail?.headers?.find((h) => h.name?.toLowerCase() === 'message-id')?.value;
  if (sesId && /^<[^>\s]{1,250}>$/.test(sesId)) ids.push(sesId);
  const bodyStart = raw.search(/\r?\n\r?\n/);
  const sources = [
    ...partTexts(mail, ORIGINAL_PART),
    bounded(mail.text),
    bodyStart >= 0 ? raw.slice(bodyStart) : '',
  ];
  for (const s of sources) {
    for (const m of s.matchAll(MESSAGE_ID_LINE)) ids.push(m[1].startsWith('<') ? m[1] : `<${m[1]}>`);
    for (const m of s.matchAll(SES_MESSAGE_ID)) ids.push(m[1]);
  }
  const seen = new Set<string>();
  return ids
    .filter((id) => {
      const k = id.toLowerCase();
      if (k === own || seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, 20);
}

/** The quoted original's single `To` address, for a report that names no failed address. */
function originalTo(mail: ParsedMail, raw: string): string | null {
  const text = bodyText(mail, raw);
  const cut = ORIGINAL_MARKER.exec(text);
  for (const s of [...rfc822Texts(mail, raw), cut ? text.slice(cut.index) : '']) {
    const to = field(s, 'to');
    if (!to) continue;
    const all = to.match(new RegExp(ADDRESS.source, 'g')) ?? [];
    return all.length === 1 ? all[0].toLowerCase() : null;
  }
  return null;
}

// ---- complaints ----

const field = (text: string, name: string): string | null =>
  new RegExp(`^${name}[ \\t]*:[ \\t]*(.{1,500})$`, 'im').exec(text)?.[1]?.trim() ?? null;

function readComplaint(mail: ParsedMail, raw: string, ses: SesNotification | null): MailReading {
  const originalMessageIdList = originalMessageIds(mail, raw, ses);
  if (ses?.complaint) {
    const c = ses.complaint;
    return {
      kind: 'complaint',
      feedbackType: (c.complaintFeedbackType ?? 'abuse').toLowerCase(),
      recipient: c.complainedRecipients?.[0]?.emailAddress?.toLowerCase() ?? null,
      originalMessageIds: originalMessageIdList,
    };
  }
  const reports = [...partTexts(mail, /feedback-report/i), bounded(mail.text), raw];
  const originals = rfc822Texts(mail, raw);
  let feedbackType: string | null = null;
  let recipient: string | null = null;
  for (const s of [...reports, ...originals]) {
    const unfolded = s.replace(/\r?\n[ \t]+/g, ' ');
    feedbackType ??=
      /^[A-Za-z0-9_-]{1,40}/.exec(field(unfolded, 'feedback-type') ?? '')?.[0]?.toLowerCase() ?? null;
    recipient ??= address(field(unfolded, 'original-rcpt-to') ?? field(unfolded, 'x-hmxmroriginalrecipient'));
  }
  for (const s of originals) recipient ??= address(field(s, 'to'));
  return {
    kind: 'complaint',
    feedbackType: feedbackType ?? 'abuse',
    recipient,
    originalMessageIds: originalMessageIdList,
  };
}

function address(s: string | null): string | null {
  if (!s) return null;
  return new RegExp(ADDRESS.source).exec(s)?.[0]?.toLowerCase() ?? null;
}

// ---- bounces ----

const SUCCESS = new Set(['delivered', 'relayed', 'expanded']);

function readReport(
  mail: ParsedMail,
  raw: string,
  reportView: ReportView,
  ses: SesNotification | null,
): MailReading {
  const originalIds = originalMessageIds(mail, raw, ses);
  if (ses?.notificationType?.toLowerCase() === 'delivery')
    return { kind: 'delivery_notice', originalMessageIds: originalIds };
  const stated = readFailedRecipients(reportView, originalTo(mail, raw));
  const delayNotice =
    (DELAY_SUBJECT.test(reportView.subject) || DELAY_TEXT.test(reportView.text)) &&
    !FINAL_TEXT.test(reportView.subject) &&
    !FINAL_BODY.test(reportView.text);
  const recipients = stated.map((r) => (r.action === null && delayNotice ? { ...r, action: 'delayed' } : r));
  const failing = recipients.filter((r) => !r.action || !SUCCESS.has(r.action));
  const failed = failing.filter((r) => r.action !== 'delayed');
  if (recipients.length && !failed.length)
    return { kind: 'delivery_notice', originalMessageIds: originalIds };
  const verdicts: BounceVerdict[] = failing.map((r) => ({ ...r, ...decideReason(r) }));
  return { kind: 'bounce', recipients: verdicts, originalMessageIds: originalIds };
}

export function readMail(mail: ParsedMail, rawMail: Buffer): MailReading {
  const raw = rawMail.subarray(0, SCAN_LIMIT).toString('latin1');
  const text = bounded(mail.text);
  const ses = sesNotification(text);
  if (complaintSignal(mail, raw, ses)) return readComplaint(mail, raw, ses);
  if (bounceSignal(mail, raw, ses)) return readReport(mail, raw, view(mail, raw), ses);
  if (isAutoReply(mail)) return { kind: 'auto_reply' };
  return { kind: 'reply' };
}
