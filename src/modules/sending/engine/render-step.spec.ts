import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import { verifyUnsubscribeToken } from '../../unsubscribe/unsubscribe-token.js';
import { DEFAULT_WORKSPACE_CONFIG } from '../../workspaces/workspace-config.js';
import { StepRenderError } from './compose.js';
import type { StepInput } from './engine.types.js';
import { rotate } from './recorder.js';
import { renderStep } from './render-step.js';

const inbox = {
  id: '5f0e8a0c-0c38-4c31-9a36-7a1f0f3f2b10',
  workspaceId: '0b8f3a52-58c4-4a4b-9f53-2d3c2e0f9a11',
  email: 'ada@sender.example',
  displayName: 'Ada',
  domain: 'sender.example',
} as Inbox;

const input = (over: Partial<StepInput> = {}): StepInput => ({
  enrollment: {
    id: 77,
    workspaceId: inbox.workspaceId,
    campaignId: 5,
    contactId: 9,
    status: 'active',
    currentStep: 0,
    inboxId: null,
  },
  step: {
    position: 1,
    delay_minutes: 0,
    subject: 'Hi {{ first_name }}',
    body: 'Hello {{ first_name }} from {{ sender.display_name }}',
  },
  contact: { email: 'bob@example.com', first_name: 'Bob', stage: 'new', custom_fields: {} },
  config: { ...DEFAULT_WORKSPACE_CONFIG },
  thread: undefined,
  previous: [],
  ...over,
});

describe('renderStep (pure: no I/O)', () => {
  it('renders subject and body for the contact and inbox, with a footer and one-click unsubscribe headers', async () => {
    const d = await renderStep(input(), inbox, 'https://out.example');
    expect(d.mail.subject).toBe('Hi Bob');
    expect(d.mail.text.startsWith('Hello Bob from Ada')).toBe(true);
    expect(d.mail.from).toEqual({ name: 'Ada', address: 'ada@sender.example' });
    expect(d.mail.to).toBe('bob@example.com');
    const url = /<(https:\/\/out\.example\/u\/[^>]+)>/.exec(d.mail.headers['List-Unsubscribe'])![1];
    expect(d.mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(d.mail.text).toContain(url);
    expect(verifyUnsubscribeToken(url.split('/u/')[1])).toEqual({
      workspaceId: inbox.workspaceId,
      contactId: 9,
      campaignId: 5,
      enrollmentId: 77,
    });
    expect(d.mail.messageId).toMatch(/^<[0-9a-f-]+@sender\.example>$/);
    expect(d).toMatchObject({ enrollmentId: 77, stepPosition: 1, threadId: null, previousInboxId: null });
    expect(d.mail.inReplyTo).toBeUndefined();
  });

  it('a follow-up without a subject replies in the thread to the messages sent so far', async () => {
    const d = await renderStep(
      input({
        step: { position: 2, delay_minutes: 60, subject: null, body: 'Following up' },
        thread: { id: 31, subject: 'Hi Bob' },
        previous: [{ message_id: '<a@sender.example>' }, { message_id: '<b@sender.example>' }],
      }),
      inbox,
      'https://out.example',
    );
    expect(d.mail.subject).toBe('Re: Hi Bob');
    expect(d.mail.inReplyTo).toBe('<b@sender.example>');
    expect(d.mail.references).toEqual(['<a@sender.example>', '<b@sender.example>']);
    expect(d.threadId).toBe(31);
  });

  it('leaves the footer out when the workspace turned it off', async () => {
    const d = await renderStep(
      input({ config: { ...DEFAULT_WORKSPACE_CONFIG, unsubscribe_footer_enabled: false } }),
      inbox,
      'https://out.example',
    );
    expect(d.mail.text).toBe('Hello Bob from Ada');
  });

  it('a template that fails for this contact is a StepRenderError naming the step', async () => {
    const bad = input({
      step: { position: 3, delay_minutes: 0, subject: 'x', body: '{{ first_name | nosuchfilter }}' },
    });
    await expect(renderStep(bad, inbox, 'https://out.example')).rejects.toBeInstanceOf(StepRenderError);
    await expect(renderStep(bad, inbox, 'https://out.example')).rejects.toThrow(/step 3/);
  });
});

describe('rotate (first steps spread over the campaign inboxes)', () => {
  it('starts at the enrollment id modulo the count and keeps the order', () => {
    expect(rotate(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(rotate(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
    expect(rotate([], 7)).toEqual([]);
  });
});
