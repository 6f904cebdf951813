/**
 * Amazon SES notifications delivered by mail through SNS (`"notificationType": "Bounce"`, JSON in the
 * body). The JSON states the recipients, their status and diagnostic, and SES's own bounce sub-type,
 * used as a hint where it names a reason outright.
 */
import type { BounceReason, FailedRecipient } from '../types.js';
import { recipientFrom, SCAN_LIMIT, type FormatReader, type ReportView } from './format.js';

export interface SesNotification {
  notificationType?: string;
  bounce?: {
    bounceType?: string;
    bounceSubType?: string;
    bouncedRecipients?: Array<{
      emailAddress?: string;
      status?: string;
      action?: string;
      diagnosticCode?: string;
    }>;
  };
  complaint?: { complainedRecipients?: Array<{ emailAddress?: string }>; complaintFeedbackType?: string };
  mail?: { headers?: Array<{ name?: string; value?: string }>; commonHeaders?: { messageId?: string } };
}

const SUB_TYPE_HINTS: Readonly<Record<string, BounceReason>> = {
  noemail: 'user_unknown',
  mailboxfull: 'mailbox_full',
  messagetoolarge: 'message_too_big',
  contentrejected: 'content_error',
  attachmentrejected: 'content_error',
};

/** The SES notification in a text (an SNS mail body is the JSON, sometimes with a footer). */
export function sesNotification(text: string): SesNotification | null {
  const t = text.slice(0, SCAN_LIMIT);
  if (!/"notificationType"\s*:/.test(t)) return null;
  const start = t.indexOf('{');
  const end = t.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    // Mail gateways wrap long lines, inside JSON strings too: the line breaks are not the JSON's.
    const parsed: unknown = JSON.parse(t.slice(start, end + 1).replace(/\r?\n/g, ''));
    return parsed && typeof parsed === 'object' ? (parsed as SesNotification) : null;
  } catch {
    return null;
  }
}

export function sesRecipients(n: SesNotification): FailedRecipient[] {
  if (n.notificationType?.toLowerCase() !== 'bounce' || !n.bounce) return [];
  const hint = SUB_TYPE_HINTS[(n.bounce.bounceSubType ?? '').toLowerCase()];
  return (n.bounce.bouncedRecipients ?? []).map((r) => {
    const diagnostic = (r.diagnosticCode ?? '').replace(/^\s*smtp\s*;/i, '');
    return recipientFrom(r.emailAddress ?? null, diagnostic, {
      action: r.action?.toLowerCase() ?? 'failed',
      ...(r.status ? { status: r.status } : {}),
      ...(hint ? { hint } : {}),
    });
  });
}

export const amazonSes: FormatReader = {
  name: 'amazon-ses-json',
  read: (view: ReportView) => {
    const n = sesNotification(view.text);
    return n ? sesRecipients(n) : [];
  },
};
