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
const vars = templateVars(contact, { email: 'me@sender.test', displayName: 'Me', domain: 'sender.test' });

describe('Liquid templates', () => {
  it('renders contact fields, custom_fields.* and sender.*', async () => {
    await expect(
      renderTemplate(
        'Hi {{ first_name | default: "there" }} at {{ company }} ({{ custom_fields.plan }}) from {{ sender.display_name }}',
        vars,
      ),
    ).resolves.toBe('Hi Ada at Engines Ltd (gold) from Me');
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
