import {
  renderBudget,
  renderTemplate,
  RENDER_BUDGET_BYTES,
  sampleTemplateVars,
  TemplateError,
  TemplateLimitError,
  templateVars,
  validateTemplate,
} from './templates.js';

const contact = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: 'Engines Ltd',
  title: null,
  phone: null,
  timezone: null,
  stage: 'new',
  customFields: { plan: 'gold' },
};
const sender = { email: 'me@sender.test', displayName: 'Me', domain: 'sender.test' };
const vars = templateVars(contact, sender);

describe('Liquid templates', () => {
  it('renders contact fields, custom_fields.* and sender.*', async () => {
    await expect(
      renderTemplate(
        'Hi {{ first_name | default: "there" }} at {{ company }} ({{ custom_fields.plan }}) from {{ sender.display_name }}',
        vars,
      ),
    ).resolves.toBe('Hi Ada at Engines Ltd (gold) from Me');
  });

  it('renders one template text for many contacts, each with its own values, and keeps refusing bad ones', async () => {
    const text = 'Hi {{ first_name }} of {% if company %}{{ company }}{% else %}nowhere{% endif %}';
    const names = Array.from({ length: 300 }, (_, i) => `N${i}`);
    const out = await Promise.all(
      names.map((n, i) =>
        renderTemplate(
          text,
          templateVars({ ...contact, firstName: n, company: i % 2 ? `C${i}` : null }, sender),
        ),
      ),
    );
    expect(out).toEqual(names.map((n, i) => `Hi ${n} of ${i % 2 ? `C${i}` : 'nowhere'}`));
    // More distinct texts than the parse cache holds: every one still renders its own output.
    for (let i = 0; i < 250; i++)
      await expect(renderTemplate(`t${i} {{ first_name }}`, vars)).resolves.toBe(`t${i} Ada`);
    await expect(renderTemplate(text, vars)).resolves.toBe('Hi Ada of Engines Ltd');
    for (let i = 0; i < 2; i++)
      await expect(renderTemplate('{% if %}', vars)).rejects.toBeInstanceOf(TemplateError);
  });

  it('renders unknown variables as empty strings', async () => {
    await expect(renderTemplate('[{{ nothing }}][{{ custom_fields.absent }}]', vars)).resolves.toBe('[][]');
  });

  it.each([
    ['an unclosed tag', '{% if first_name %}hello'],
    ['an unclosed output', 'Hi {{ first_name'],
    ['an unknown filter', '{{ first_name | no_such_filter }}'],
    ['an unknown tag', '{% frobnicate %}'],
    ['include (file access)', "{% include 'x' %}"],
    ['render (file access)', "{% render 'x' %}"],
    ['layout (file access)', "{% layout 'x' %}"],
  ])('rejects %s at validation', (_, template) => {
    expect(() => validateTemplate(template)).toThrow(TemplateError);
  });

  it('bounds runaway loops by the render limits instead of hanging', async () => {
    const bomb = '{% for a in (1..100000) %}{% for b in (1..100000) %}x{% endfor %}{% endfor %}';
    expect(() => validateTemplate(bomb)).not.toThrow();
    await expect(renderTemplate(bomb, vars)).rejects.toThrow(TemplateError);
  });

  it('stops a nested loop at the time budget, well before a second', async () => {
    const nested = '{% for a in (1..1000) %}{% for b in (1..1000) %}x{% endfor %}{% endfor %}';
    expect(() => validateTemplate(nested)).not.toThrow();
    const started = performance.now();
    const err = await renderTemplate(nested, vars).then(
      () => null,
      (e: unknown) => e,
    );
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(TemplateLimitError);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as Error).message).toMatch(/longer than 50 ms/);
    // A generous bound: it was stopped, it did not run to completion (~1 s and more).
    expect(elapsed).toBeLessThan(1000);
  });

  it.each([
    ['where_exp over a large range', '{% assign a = (1..60000) | where_exp: "i", "i > 5" %}{{ a | size }}'],
    ['group_by over a large range', '{{ (1..60000) | group_by: "x" | size }}'],
    [
      'sort_natural over a split string',
      '{% assign s = "abcdefghij" %}{% for i in (1..13) %}{% assign s = s | append: s %}{% endfor %}{{ s | split: "" | sort_natural | size }}',
    ],
    [
      'doubling a string',
      '{% assign s = "xxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}',
    ],
  ])('refuses %s (one filter call cannot outrun the budget)', async (_, template) => {
    const started = performance.now();
    await expect(renderTemplate(template, vars)).rejects.toThrow(TemplateLimitError);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('one budget covers a whole step: subject and body together', async () => {
    const big = '{% for a in (1..150) %}' + 'x'.repeat(1000) + '{% endfor %}';
    // Each alone fits...
    await expect(renderTemplate(big, vars)).resolves.toHaveLength(150_000);
    // ...but not both in one step.
    const budget = renderBudget();
    await expect(renderTemplate(big, vars, budget)).resolves.toHaveLength(150_000);
    await expect(renderTemplate(big, vars, budget)).rejects.toThrow(/larger than 256 KiB/);
  });

  it('keeps ordinary templates working under the budget, loops over custom fields included', async () => {
    const many = templateVars(
      {
        ...contact,
        customFields: Object.fromEntries(
          Array.from({ length: 50 }, (_, i) => [`f${i}`, String(i).padStart(100, 'v')]),
        ),
      },
      sender,
    );
    const out = await renderTemplate(
      '{% for f in custom_fields %}{{ f[0] | upcase }}={{ f[1] | truncate: 10 }};{% endfor %}{{ (1..100) | join: "," | size }}',
      many,
    );
    expect(out).toContain('F0=vvvvvvv...;');
    expect(out).toContain('F49=vvvvvvv...;');
    expect(out.endsWith('291')).toBe(true);
  });

  it('caps the rendered size at 256 KiB of UTF-8', async () => {
    const wide = '{% for a in (1..300) %}' + 'x'.repeat(1000) + '{% endfor %}';
    await expect(renderTemplate(wide, vars)).rejects.toThrow(TemplateLimitError);
    await expect(renderTemplate(wide, vars)).rejects.toThrow(/larger than 256 KiB/);
    // 200,000 characters, but 400,000 bytes.
    const accents = '{% for a in (1..200) %}' + 'é'.repeat(1000) + '{% endfor %}';
    await expect(renderTemplate(accents, vars)).rejects.toThrow(/larger than 256 KiB/);
    // Just under the bound renders.
    const under = '{% for a in (1..256) %}' + 'x'.repeat(1023) + '{% endfor %}';
    await expect(renderTemplate(under, vars)).resolves.toHaveLength(256 * 1023);
    expect(RENDER_BUDGET_BYTES).toBe(256 * 1024);
  });
  it('the sample contact has every field, sender.* and 50 custom fields at 100 characters, and any custom field name', async () => {
    const sample = sampleTemplateVars();
    const lengths = await renderTemplate(
      '{{ email | size }} {{ first_name | size }} {{ last_name | size }} {{ company | size }} {{ title | size }} ' +
        '{{ phone | size }} {{ timezone | size }} {{ stage | size }} {{ sender.email | size }} ' +
        '{{ sender.display_name | size }} {{ sender.domain | size }} {{ custom_fields.city | size }} ' +
        '{% assign n = 0 %}{% for f in custom_fields %}{% assign l = f[1] | size %}{% if l == 100 %}{% assign n = n | plus: 1 %}{% endif %}{% endfor %}{{ n }}',
      sample,
    );
    expect(lengths).toBe(Array(12).fill('100').join(' ') + ' 50');
    // Still only own, string-keyed properties.
    await expect(
      renderTemplate('[{{ custom_fields.constructor }}][{{ custom_fields.toString }}]', sample),
    ).resolves.toBe('[][]');
  });

  it('does not expose inherited properties', async () => {
    await expect(renderTemplate('{{ custom_fields.constructor }}', vars)).resolves.toBe('');
  });
});
