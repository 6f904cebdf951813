import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import { verifyUnsubscribeToken } from '../../unsubscribe/unsubscribe-token.js';
import { DEFAULT_WORKSPACE_CONFIG } from '../../workspaces/workspace-config.js';
import { StepRenderError } from './compose.js';
import type { StepInput } from './engine.types.js';
import { rotate } from './recorder.js';
import { chooseVariant, renderStep } from './render-step.js';
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';

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
    subsequenceId: null,
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

describe('step variants (A/B): chosen in the renderer from the loaded step', () => {
  const withVariants = (extra: number, position = 1): SequenceStep => ({
    position,
    delay_minutes: 0,
    subject: 'A {{ first_name }}',
    body: 'Body A',
    variants: Array.from({ length: extra }, (_, i) => ({
      subject: `${'BCDE'[i]} {{ first_name }}`,
      body: `Body ${'BCDE'[i]}`,
    })),
  });
  const spread = (extra: number, position: number, from: number, count: number): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (let id = from; id < from + count; id++) {
      const { letter } = chooseVariant(withVariants(extra, position), id);
      counts[letter] = (counts[letter] ?? 0) + 1;
    }
    return counts;
  };

  it('spreads 1,000 enrollments 500/500 over two variants and within one over three, at any step', () => {
    for (const position of [1, 2, 7]) {
      expect(spread(1, position, 1, 1000)).toEqual({ A: 500, B: 500 });
      const three = Object.values(spread(2, position, 12345, 1000));
      expect(three).toHaveLength(3);
      expect(Math.max(...three) - Math.min(...three)).toBeLessThanOrEqual(1);
      expect(three.reduce((a, b) => a + b, 0)).toBe(1000);
      const five = spread(4, position, 1, 1000);
      expect(five).toEqual({ A: 200, B: 200, C: 200, D: 200, E: 200 });
    }
  });

  it('is deterministic per enrollment and step, and a step without variants is always A', () => {
    expect(chooseVariant(withVariants(2, 3), 40).letter).toBe(chooseVariant(withVariants(2, 3), 40).letter);
    // (40 + 3) mod 3 = 1 → B; (41 + 3) mod 3 = 2 → C; (42 + 3) mod 3 = 0 → A.
    expect([40, 41, 42].map((id) => chooseVariant(withVariants(2, 3), id).letter)).toEqual(['B', 'C', 'A']);
    expect(chooseVariant(withVariants(0, 1), 41).letter).toBe('A');
    expect(chooseVariant({ position: 1, delay_minutes: 0, subject: 's', body: 'b' }, 8).letter).toBe('A');
  });

  it("renders the chosen variant's subject and body and records its letter on the draft", async () => {
    // enrollment 77, position 1, two variants: (77 + 1) mod 3 = 0 → A; 78 → B; 79 → C.
    const letters: string[] = [];
    for (const id of [77, 78, 79]) {
      const base = input();
      const d = await renderStep(
        input({ enrollment: { ...base.enrollment, id }, step: withVariants(2) }),
        inbox,
        'https://out.example',
      );
      letters.push(d.variant);
      expect(d.mail.subject).toBe(`${d.variant} Bob`);
      expect(d.mail.text.startsWith(`Body ${d.variant}`)).toBe(true);
    }
    expect(letters).toEqual(['A', 'B', 'C']);
  });

  it('a follow-up variant without a subject replies to the subject step 1 actually sent', async () => {
    const step: SequenceStep = {
      position: 2,
      delay_minutes: 0,
      subject: 'Own subject of A',
      body: 'A',
      variants: [{ subject: null, body: 'B follows up' }],
    };
    // (77 + 2) mod 2 = 1 → B, which has no subject.
    const d = await renderStep(
      input({ step, thread: { id: 5, subject: 'B subject that step 1 sent' } }),
      inbox,
      'https://out.example',
    );
    expect(d.variant).toBe('B');
    expect(d.mail.subject).toBe('Re: B subject that step 1 sent');
    expect(d.mail.text.startsWith('B follows up')).toBe(true);
  });
});
