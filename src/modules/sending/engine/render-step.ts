/**
 * Rendering one step for one contact and inbox: the subject and body (Liquid, under the template
 * budget), the unsubscribe link and headers, the threading headers. No I/O: everything comes in as
 * arguments, so this is unit-testable as is.
 */
import { templateVars } from '../../sequences/templates.js';
import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import { signUnsubscribeToken } from '../../unsubscribe/unsubscribe-token.js';
import { composeStep, newMessageId, unsubscribeHeaders, unsubscribeUrl, withFooter } from './compose.js';
import type { Draft, StepInput } from './engine.types.js';

/** The step rendered for `inbox`. Throws StepRenderError when its template fails for this contact. */
export async function renderStep(
  { enrollment, step, contact, config, thread, previous }: StepInput,
  inbox: Inbox,
  publicUrl: string,
): Promise<Draft> {
  const ws = enrollment.workspaceId;
  const vars = templateVars(
    {
      email: contact.email as string,
      firstName: contact.first_name as string | null,
      lastName: contact.last_name as string | null,
      company: contact.company as string | null,
      title: contact.title as string | null,
      phone: contact.phone as string | null,
      timezone: contact.timezone as string | null,
      stage: contact.stage as string,
      customFields: contact.custom_fields as Record<string, string> | null,
    },
    { email: inbox.email, displayName: inbox.displayName, domain: inbox.domain },
  );
  const composed = await composeStep(step, vars, thread?.subject ?? null);
  const token = signUnsubscribeToken({
    workspaceId: ws,
    contactId: enrollment.contactId,
    campaignId: enrollment.campaignId,
    enrollmentId: enrollment.id,
  });
  const url = unsubscribeUrl(publicUrl, token);
  const body = config.unsubscribe_footer_enabled ? withFooter(composed.body, url) : composed.body;
  const messageId = newMessageId(inbox.domain);
  const references = previous.map((p) => p.message_id).filter(Boolean);
  const inReplyTo = references.length ? references[references.length - 1] : undefined;
  return {
    workspaceId: ws,
    enrollmentId: enrollment.id,
    campaignId: enrollment.campaignId,
    contactId: enrollment.contactId,
    stepPosition: step.position,
    threadId: thread?.id ?? null,
    previousInboxId: enrollment.inboxId,
    inbox,
    mail: {
      from: { name: inbox.displayName ?? '', address: inbox.email },
      to: contact.email as string,
      subject: composed.subject,
      text: body,
      messageId,
      ...(inReplyTo ? { inReplyTo, references } : {}),
      headers: unsubscribeHeaders(url),
    },
  };
}
