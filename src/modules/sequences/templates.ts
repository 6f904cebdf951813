/**
 * Liquid templates for step subjects and bodies (CONTRACT §4), sandboxed: no file system (include,
 * render and layout are refused at parse time and the loader has no files), unknown filters are parse
 * errors, only own properties are visible, and parsing and rendering are bounded in size, time and
 * memory. `validateTemplate` runs at save time; `renderTemplate` is what the sending engine calls.
 */
import { Liquid, type FS, type Template } from 'liquidjs';

/** Longest template accepted (characters); bodies are checked against this at save time as well. */
export const TEMPLATE_MAX_LENGTH = 100_000;
/** Longest rendered text accepted (characters): a loop cannot turn a step into a huge email. */
export const RENDERED_MAX_LENGTH = 1_000_000;

const NO_FILES: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(new Error('templates have no file access')),
  readFileSync: () => {
    throw new Error('templates have no file access');
  },
  resolve: () => {
    throw new Error('templates have no file access');
  },
  contains: () => Promise.resolve(false),
  containsSync: () => false,
  sep: '/',
};

const engine = new Liquid({
  fs: NO_FILES,
  root: [],
  partials: [],
  layouts: [],
  dynamicPartials: false,
  relativeReference: false,
  strictFilters: true,
  strictVariables: false,
  ownPropertyOnly: true,
  cache: false,
  parseLimit: TEMPLATE_MAX_LENGTH,
  renderLimit: 1000,
  memoryLimit: 10_000_000,
});

for (const tag of ['include', 'render', 'layout']) {
  engine.registerTag(tag, {
    parse() {
      throw new Error(`the {% ${tag} %} tag is not available in templates`);
    },
    render() {
      return '';
    },
  });
}

export class TemplateError extends Error {}

/**
 * Parsed templates by their text, so a step sent to thousands of contacts is parsed once per
 * process, not once per message (liquidjs renders a parsed template any number of times; a parse
 * keeps no variables). Bounded: the oldest entry goes when it is full.
 */
const PARSED_MAX = 200;
const parsedByText = new Map<string, Template[]>();

function parse(template: string): Template[] {
  const cached = parsedByText.get(template);
  if (cached) return cached;
  if (template.length > TEMPLATE_MAX_LENGTH) {
    throw new TemplateError(`template is longer than ${TEMPLATE_MAX_LENGTH} characters`);
  }
  let parsed: Template[];
  try {
    parsed = engine.parse(template);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new TemplateError(message);
  }
  if (parsedByText.size >= PARSED_MAX) parsedByText.delete(parsedByText.keys().next().value as string);
  parsedByText.set(template, parsed);
  return parsed;
}

/** Throws TemplateError with a one-line reason when `template` does not parse. */
export function validateTemplate(template: string): void {
  parse(template);
}

/** Variables a template sees: contact fields, `custom_fields.*` and `sender.*`. */
export interface TemplateVars {
  email: string;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  timezone: string | null;
  stage?: string;
  custom_fields: Record<string, string>;
  sender: { email: string; display_name: string | null; domain?: string };
  [key: string]: unknown;
}

/** Builds the variables from a contact row and the sending inbox. */
export function templateVars(
  contact: {
    email: string;
    firstName: string | null;
    lastName: string | null;
    company: string | null;
    title: string | null;
    phone: string | null;
    timezone: string | null;
    stage?: string;
    customFields: Record<string, string> | null;
  },
  sender: { email: string; displayName: string | null; domain?: string },
): TemplateVars {
  return {
    email: contact.email,
    first_name: contact.firstName,
    last_name: contact.lastName,
    company: contact.company,
    title: contact.title,
    phone: contact.phone,
    timezone: contact.timezone,
    stage: contact.stage,
    custom_fields: { ...(contact.customFields ?? {}) },
    sender: { email: sender.email, display_name: sender.displayName, domain: sender.domain },
  };
}

/**
 * Renders a template with `vars`. Unknown variables render as empty strings. Throws TemplateError
 * when the template does not parse or exceeds the render time or memory bounds.
 */
export async function renderTemplate(template: string, vars: Record<string, unknown>): Promise<string> {
  const parsed = parse(template);
  let out: string;
  try {
    out = String(await engine.render(parsed, vars));
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new TemplateError(message);
  }
  if (out.length > RENDERED_MAX_LENGTH) {
    throw new TemplateError(`rendered text is longer than ${RENDERED_MAX_LENGTH} characters`);
  }
  return out;
}
