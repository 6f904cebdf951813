/**
 * Liquid templates for step subjects and bodies, sandboxed: no file system (include,
 * render and layout are refused at parse time and the loader has no files), unknown filters are parse
 * errors, only own properties are visible, and parsing and rendering are bounded in size, time and
 * memory. `validateTemplate` runs at save time; `renderTemplate` is what the sending engine calls.
 *
 * The render budget: one step for one contact renders in at most RENDER_BUDGET_MS and
 * produces at most RENDER_BUDGET_BYTES, or TemplateLimitError. Rendering is synchronous (no template
 * reads anything asynchronous), so the budget is also the longest the event loop can be held by one
 * render. liquidjs checks its time limit between template nodes; a single filter call is not
 * interrupted, so the work any one call can do is bounded instead: liquidjs charges string and range
 * sizes to its memory limit, and every filter here also charges ARRAY_ITEM_COST per list item it is
 * handed (the list filters are the slow ones per item), before it runs.
 *
 * Time is wall-clock time, which a garbage-collection pause or a busy machine can eat into: a render
 * stopped by the clock is tried once more after an event-loop turn (once per budget), so an ordinary
 * template is not refused for a hiccup while a heavy one fails twice in a row. The event loop is never
 * held longer than the budget at a time.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Context, Liquid, type FilterImplOptions, type FS, type Template } from 'liquidjs';

/** Longest template accepted (characters); bodies are checked against this at save time as well. */
export const TEMPLATE_MAX_LENGTH = 100_000;
/** Longest time rendering one step (subject and body) for one contact may take. */
export const RENDER_BUDGET_MS = 50;
/** Most UTF-8 bytes one step (subject and body) may render to. */
export const RENDER_BUDGET_BYTES = 256 * 1024;
/**
 * liquidjs's memory limit for one template render: characters produced by string filters and string literals,
 * plus list items (ranges count their length, filters ARRAY_ITEM_COST per item handed to them).
 */
export const RENDER_MEMORY_LIMIT = 256 * 1024;
/**
 * What a list item handed to a filter costs against RENDER_MEMORY_LIMIT: the slowest list filters
 * (`where_exp`, `group_by_exp`) are the slowest per item (slower still before the JIT has warmed up),
 * so this keeps one call to a small share of the render budget, whatever the template.
 */
const ARRAY_ITEM_COST = 128;

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
  renderLimit: RENDER_BUDGET_MS,
  memoryLimit: RENDER_MEMORY_LIMIT,
});

/** A filter's handler, as liquidjs calls it (`this` carries the render context). */
type FilterFn = (this: { context: Context }, value: unknown, ...args: unknown[]) => unknown;

// Every filter checks the time budget before it runs and pays for the list items it is handed
// (filters are bound to their implementation at parse time, so this runs before any parse).
for (const [name, impl] of Object.entries(engine.filters)) {
  const handler = (typeof impl === 'function' ? impl : impl.handler) as FilterFn;
  const bounded: FilterFn = function (value, ...args) {
    this.context.renderLimit.check(performance.now());
    let items = Array.isArray(value) ? value.length : 0;
    for (const arg of args) if (Array.isArray(arg)) items += arg.length;
    if (items > 0) this.context.memoryLimit.use(items * ARRAY_ITEM_COST);
    return handler.call(this, value, ...args);
  };
  const options = (
    typeof impl === 'function' ? bounded : { handler: bounded, raw: impl.raw }
  ) as FilterImplOptions;
  engine.registerFilter(name, options);
}

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

/** A template that parses but is over the render budget (time, size or memory) for this input. */
export class TemplateLimitError extends TemplateError {}

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
 * Render time: RENDER_BUDGET_MS, and the one retry allowed after a render stopped by the clock. One
 * clock is one budget of time, whatever number of renders share it.
 */
export class RenderClock {
  /** Render time still allowed (ms). */
  msLeft = RENDER_BUDGET_MS;
  /** Whether the one retry allowed after a render stopped by the clock was used. */
  retried = false;
}

/**
 * The budget of one step for one contact: pass the same one to the subject's and the body's
 * `renderTemplate` so that both together stay within RENDER_BUDGET_MS and RENDER_BUDGET_BYTES.
 * Only rendering counts against the time; memory is limited per template. Budgets built on one
 * `RenderClock` share its time (a save test-renders every step and variant on one clock) and each
 * keep their own bytes (each is one message).
 */
export class RenderBudget {
  /** UTF-8 bytes still allowed. */
  bytesLeft = RENDER_BUDGET_BYTES;

  constructor(readonly clock: RenderClock = new RenderClock()) {}

  /** Render time still allowed (ms), on this budget's clock. */
  get msLeft(): number {
    return this.clock.msLeft;
  }
  set msLeft(ms: number) {
    this.clock.msLeft = ms;
  }

  /** Whether this budget's clock has used its one retry. */
  get retried(): boolean {
    return this.clock.retried;
  }
  set retried(used: boolean) {
    this.clock.retried = used;
  }
}

/** A fresh budget (its own clock), or one more message's bytes on an existing `clock`. */
export const renderBudget = (clock?: RenderClock): RenderBudget => new RenderBudget(clock);

const overSize = (): TemplateLimitError =>
  new TemplateLimitError(`rendered text is larger than ${RENDER_BUDGET_BYTES / 1024} KiB`);

const OVER_TIME = 'template render limit exceeded';

/** liquidjs's errors (first line only) as TemplateError; its limits as TemplateLimitError. */
function renderError(err: unknown): TemplateError {
  const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
  if (message.includes(OVER_TIME)) {
    return new TemplateLimitError(`rendering took longer than ${RENDER_BUDGET_MS} ms`);
  }
  if (message.includes('memory alloc limit exceeded')) {
    return new TemplateLimitError(
      `rendering works on too much data (filters, ranges and lists are limited to ${RENDER_MEMORY_LIMIT} characters or ${RENDER_MEMORY_LIMIT / ARRAY_ITEM_COST} list items)`,
    );
  }
  // A string or list beyond what V8 can hold is a size overrun too.
  if (/Invalid (string|array) length/.test(message)) return overSize();
  return new TemplateError(message);
}

/** One synchronous render within `ms`; liquidjs's errors as they are. */
function renderWithin(parsed: Template[], vars: Record<string, unknown>, ms: number): string {
  if (ms <= 0) throw new Error(OVER_TIME);
  const ctx = new Context(
    vars,
    engine.options,
    { sync: true, renderLimit: ms, memoryLimit: RENDER_MEMORY_LIMIT },
    { liquid: engine },
  );
  return String(engine.renderSync(parsed, ctx));
}

/** Characters of every field of the sample contact. */
export const SAMPLE_FIELD_LENGTH = 100;
/** Custom fields the sample contact has (the most a contact may have). */
export const SAMPLE_CUSTOM_FIELDS = 50;

/**
 * The sample contact every step is test-rendered for at save: every contact field and every
 * `sender.*` a 100-character string, and 50 custom fields of 100 characters. Any other custom field
 * name a template reads is answered with 100 characters as well, so `custom_fields.city` is as
 * long as a real contact's could be; loops over `custom_fields` see the 50.
 */
export function sampleTemplateVars(): TemplateVars {
  const text = (seed: string): string =>
    seed.repeat(Math.ceil(SAMPLE_FIELD_LENGTH / seed.length)).slice(0, SAMPLE_FIELD_LENGTH);
  const named = Object.fromEntries(
    Array.from({ length: SAMPLE_CUSTOM_FIELDS }, (_, i) => [`field_${i + 1}`, text(`value ${i + 1} `)]),
  );
  const customFields = new Proxy(named, {
    get: (target, key) =>
      typeof key === 'string' && !(key in Object.prototype) ? (target[key] ?? text(`${key} `)) : undefined,
    has: (target, key) => typeof key === 'string' && (key in target || !(key in Object.prototype)),
    getOwnPropertyDescriptor: (target, key) =>
      typeof key === 'string' && !(key in Object.prototype)
        ? {
            value: target[key] ?? text(`${key} `),
            writable: true,
            enumerable: key in target,
            configurable: true,
          }
        : undefined,
  });
  return {
    email: `${text('sample.contact.')}`.slice(0, SAMPLE_FIELD_LENGTH - 12) + '@example.com',
    first_name: text('First '),
    last_name: text('Last '),
    company: text('Company '),
    title: text('Title '),
    phone: text('+1 555 0100 '),
    timezone: text('Europe/Paris '),
    stage: text('stage '),
    custom_fields: customFields,
    sender: {
      email: `${text('sample.sender.')}`.slice(0, SAMPLE_FIELD_LENGTH - 12) + '@example.com',
      display_name: text('Sender '),
      domain: text('sender-domain.example.'),
    },
  };
}

/**
 * Renders a template with `vars`. Unknown variables render as empty strings. Throws TemplateError
 * when the template does not parse, TemplateLimitError when it is over `budget` (by default a fresh
 * one: RENDER_BUDGET_MS and RENDER_BUDGET_BYTES for this template alone).
 */
export async function renderTemplate(
  template: string,
  vars: Record<string, unknown>,
  budget: RenderBudget = new RenderBudget(),
): Promise<string> {
  const parsed = parse(template);
  let out: string;
  for (;;) {
    const started = performance.now();
    try {
      out = renderWithin(parsed, vars, budget.msLeft);
      budget.msLeft -= performance.now() - started;
      break;
    } catch (err) {
      const overTime = err instanceof Error && err.message.includes(OVER_TIME);
      if (!overTime || budget.retried) throw renderError(err);
      // Maybe a pause, not the template: once per budget, after letting the event loop run.
      budget.retried = true;
      await nextTurn();
    }
  }
  // Characters first: a long text is refused without flattening or measuring it.
  if (out.length > budget.bytesLeft) throw overSize();
  const bytes = Buffer.byteLength(out, 'utf8');
  if (bytes > budget.bytesLeft) throw overSize();
  budget.bytesLeft -= bytes;
  return out;
}
