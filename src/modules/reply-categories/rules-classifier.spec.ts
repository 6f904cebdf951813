import { readFileSync } from 'node:fs';
import { REPLY_CATEGORIES, isReplyCategory, type ReplyCategory } from '../threads/reply-category.js';
import { replyText } from '../mail-reading/reply-text.js';
import { classifyByRules } from './rules-classifier.js';

interface LabelledReply {
  id: string;
  lang: 'en' | 'de' | 'fr' | 'es';
  /** The round it was written in: each round was measured before the rules saw it (docs/reply-categories.md). */
  round: number;
  category: ReplyCategory;
  body: string;
}

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/replies.json', import.meta.url), 'utf8'),
) as LabelledReply[];

const results = fixture.map((r) => ({ ...r, got: classifyByRules(replyText(r.body)) }));

/** Per category: how many labelled, recall, precision; printed so docs/reply-categories.md can quote them. */
function figures(): string {
  const rows = REPLY_CATEGORIES.map((c) => {
    const labelled = results.filter((r) => r.category === c);
    const predicted = results.filter((r) => r.got === c);
    const hit = labelled.filter((r) => r.got === c).length;
    const pct = (n: number, d: number): string => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)} %`);
    return `| ${c} | ${labelled.length} | ${hit} | ${pct(hit, labelled.length)} | ${pct(hit, predicted.length)} |`;
  });
  const right = results.filter((r) => r.got === r.category).length;
  const byLang = (['en', 'de', 'fr', 'es'] as const).map((l) => {
    const of = results.filter((r) => r.lang === l);
    return `${l} ${of.filter((r) => r.got === r.category).length}/${of.length}`;
  });
  const rounds = [...new Set(results.map((r) => r.round))].map((n) => {
    const of = results.filter((r) => r.round === n);
    return `round ${n} ${of.filter((r) => r.got === r.category).length}/${of.length}`;
  });
  const misses = results.filter((r) => r.got !== r.category).map((r) => `${r.id}: ${r.category} → ${r.got}`);
  return [
    `overall ${right}/${results.length} (${((100 * right) / results.length).toFixed(1)} %); ${byLang.join(', ')}; ${rounds.join(', ')}`,
    '| category | labelled | right | recall | precision |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    ...(misses.length ? ['misses:', ...misses] : []),
  ].join('\n');
}

describe('rules classifier on the labelled replies (fixtures/replies.json)', () => {
  afterAll(() => {
    console.log(figures());
  });

  it('holds at least 150 varied replies in four languages, every label in the closed set', () => {
    expect(fixture.length).toBeGreaterThanOrEqual(150);
    expect(new Set(fixture.map((r) => r.lang))).toEqual(new Set(['en', 'de', 'fr', 'es']));
    expect(fixture.every((r) => isReplyCategory(r.category))).toBe(true);
    for (const c of REPLY_CATEGORIES) expect(fixture.some((r) => r.category === c)).toBe(true);
  });

  it('gets at least 85 % right overall', () => {
    const right = results.filter((r) => r.got === r.category).length;
    expect(right / results.length).toBeGreaterThanOrEqual(0.85);
  });

  it('finds at least 95 % of the written opt-outs', () => {
    const optOuts = results.filter((r) => r.category === 'unsubscribe_request');
    const found = optOuts.filter((r) => r.got === 'unsubscribe_request');
    expect(found.length / optOuts.length).toBeGreaterThanOrEqual(0.95);
  });

  it('never takes an interested reply for an opt-out', () => {
    const wrong = results.filter((r) => r.category === 'interested' && r.got === 'unsubscribe_request');
    expect(wrong.map((r) => r.id)).toEqual([]);
  });
});

describe('rules classifier: phrasing it must get right', () => {
  it.each([
    ['Please remove me from your list', 'unsubscribe_request'],
    ['please unsubscribe me', 'unsubscribe_request'],
    ['Stop sending me these emails', 'unsubscribe_request'],
    ["Don't email me again.", 'unsubscribe_request'],
    ['Bitte abmelden.', 'unsubscribe_request'],
    ['Merci de me désinscrire de vos envois', 'unsubscribe_request'],
    ['Quiero darme de baja', 'unsubscribe_request'],
    ['No need to remove me, I am interested. Send the deck.', 'interested'],
    ["Don't unsubscribe me, I want to hear more. Let's talk Friday.", 'interested'],
    ['This would remove the bottleneck in our process. Can we talk?', 'interested'],
    ['Stop by our office on Tuesday and we can discuss pricing.', 'interested'],
    ['Not interested right now but try in Q3', 'not_now'],
    ["I've left the company, contact jane@acme.example", 'wrong_person'],
    ['No thanks', 'not_interested'],
    ['', 'other'],
  ] as const)('%j → %s', (text, expected) => {
    expect(classifyByRules(text)).toBe(expected);
  });

  it('does not read an opt-out in the quoted history or in our own footer', () => {
    const body =
      "Yes, let's talk on Monday.\n\nOn Tue, Mar 3, 2026 at 10:15 AM Anna <anna@x.example> wrote:\n> Reply STOP to unsubscribe.\n";
    expect(classifyByRules(replyText(body))).toBe('interested');
    expect(
      classifyByRules('Sounds good. If you want to unsubscribe later, click here? No, I want the demo.'),
    ).toBe('interested');
  });
});
