/**
 * Rendering one step for one contact and inbox: the variant the enrollment gets, the subject and body
 * (Liquid, under the template budget), the unsubscribe link and headers, the threading headers. No
 * I/O: everything comes in as arguments (the variants are part of the step the claim loaded), so this
 * is unit-testable as is.
 */
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';
import { templateVars } from '../../sequences/templates.js';
import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import { signUnsubscribeToken } from '../../unsubscribe/unsubscribe-token.js';
import { composeStep, newMessageId, unsubscribeHeaders, unsubscribeUrl, withFooter } from './compose.js';
import type { Draft, StepInput } from './engine.types.js';

const VARIANT_LETTERS = ['A', 'B', 'C', 'D', 'E'];

/**
 * The variant of `step` an enrollment gets: index (enrollment id + position) mod (variants + 1), so
 * consecutive enrollments take the variants in turn (1,000 enrollments: 500/500 over two, within one
 * of each other over three), and one enrollment does not always get the same letter at every step.
 * Deterministic: the same enrollment and step always get the same variant, also when a step is
 * recorded again after a crash. Variant A is the step's own subject and body.
 */
export function chooseVariant(
  step: SequenceStep,
  enrollmentId: number,
): { letter: string; step: SequenceStep } {
  const extra = step.variants ?? [];
  const index = (enrollmentId + step.position) % (extra.length + 1);
  if (index === 0) return { letter: 'A', step };
  const v = extra[index - 1];
  return { letter: VARIANT_LETTERS[index], step: { ...step, subject: v.subject, body: v.body } };
}

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
  // A referred contact's templates name who referred them (`{{referrer.first_name}}`, CONTRACT §23).
  const referrer = contact.referrer as {
    first_name: string | null;
    last_name: string | null;
    email: string;
  } | null;
  if (referrer) vars.referrer = referrer;
  // A follow-up without a subject replies to the thread's subject: what step 1 actually sent.
  const variant = chooseVariant(step, enrollment.id);
  const composed = await composeStep(variant.step, vars, thread?.subject ?? null);
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
    subsequenceId: enrollment.subsequenceId,
    stepPosition: step.position,
    variant: variant.letter,
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
