/**
 * What a step looks like on the wire: rendered subject and body, the thread subject for follow-ups,
 * the unsubscribe footer, and the RFC 8058 headers. Pure apart from the template engine.
 */
import { randomUUID } from 'node:crypto';
import type { SequenceStep } from '../sequences/entities/sequence.entity.js';
import { renderTemplate } from '../sequences/templates.js';

export interface ComposedStep {
  subject: string;
  body: string;
}

/** `Re: ` + the first subject, unless it already starts with one. */
export function replySubject(first: string): string {
  return /^re:/i.test(first.trim()) ? first : `Re: ${first}`;
}

export async function composeStep(
  step: SequenceStep,
  vars: Record<string, unknown>,
  threadSubject: string | null,
): Promise<ComposedStep> {
  const ownSubject =
    step.subject && step.subject.trim() !== '' ? (await renderTemplate(step.subject, vars)).trim() : null;
  const subject = ownSubject ?? (threadSubject !== null ? replySubject(threadSubject) : '');
  const body = await renderTemplate(step.body, vars);
  return { subject: subject.replace(/[\r\n]+/g, ' '), body };
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
