import { renderTemplate, TemplateError, templateVars, validateTemplate } from './templates.js';

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

  it('caps the rendered size', async () => {
    const wide = '{% for a in (1..20000) %}' + 'x'.repeat(100) + '{% endfor %}';
    await expect(renderTemplate(wide, vars)).rejects.toThrow(/longer than/);
  });

  it('does not expose inherited properties', async () => {
    await expect(renderTemplate('{{ custom_fields.constructor }}', vars)).resolves.toBe('');
  });
});
