/**
 * What a step looks like on the wire: rendered subject and body, the thread subject for follow-ups,
 * the unsubscribe footer, and the RFC 8058 headers. Pure apart from the template engine.
 */
import { randomUUID } from 'node:crypto';
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';
import { renderBudget, renderTemplate } from '../../sequences/templates.js';

export interface ComposedStep {
  subject: string;
  body: string;
}

/** `Re: ` + the first subject, unless it already starts with one. */
export function replySubject(first: string): string {
  return /^re:/i.test(first.trim()) ? first : `Re: ${first}`;
}

/**
 * A step that cannot be rendered for a contact (a template error, or over the render budget). The
 * engine pauses the enrollment with `message` as its note; it is not retried on its own.
 */
export class StepRenderError extends Error {
  constructor(
    readonly position: number,
    cause: unknown,
  ) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0].slice(0, 300);
    super(`template error in step ${position}: ${reason}`);
  }
}

/** Renders a step's subject and body; any rendering failure becomes a StepRenderError naming the step. */
export async function composeStep(
  step: SequenceStep,
  vars: Record<string, unknown>,
  threadSubject: string | null,
): Promise<ComposedStep> {
  try {
    // One budget for the whole step: subject and body together stay within 50 ms and 256 KiB.
    const budget = renderBudget();
    const ownSubject =
      step.subject && step.subject.trim() !== ''
        ? (await renderTemplate(step.subject, vars, budget)).trim()
        : null;
    const subject = ownSubject ?? (threadSubject !== null ? replySubject(threadSubject) : '');
    const body = await renderTemplate(step.body, vars, budget);
    return { subject: subject.replace(/[\r\n]+/g, ' '), body };
  } catch (err) {
    throw new StepRenderError(step.position, err);
  }
}

export function unsubscribeUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/u/${token}`;
}

export function withFooter(body: string, url: string): string {
  return `${body.replace(/\s+$/, '')}\n\n--\nTo stop receiving these emails, unsubscribe: ${url}\n`;
}

export function newMessageId(domain: string): string {
  return `<${randomUUID()}@${domain.replace(/[^A-Za-z0-9.-]/g, '') || 'localhost'}>`;
}

export function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
