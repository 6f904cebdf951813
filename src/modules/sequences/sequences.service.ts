/**
 * Sequences: steps are replaced as a whole array and only while draft; templates are
 * validated when saved; publishing needs at least one step. State changes lock the row first, so two
 * concurrent requests cannot both pass the draft check.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import type { CreateSequenceDto, SequenceStepDto, UpdateSequenceDto } from './dto/sequence.dto.js';
import { Sequence, type SequenceStep } from './entities/sequence.entity.js';
import { SequencesRepository } from './sequences.repository.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  RENDER_BUDGET_MS,
  RenderClock,
  renderBudget,
  renderTemplate,
  sampleTemplateVars,
  TemplateError,
  validateTemplate,
} from './templates.js';
import { wellFormed } from './dto/text-rules.js';
import { toSequenceView, type SequenceView } from './sequence.view.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** A template that does not parse → 422 naming `field`. */
function checkTemplate(field: string, template: string | null): void {
  if (template === null) return;
  try {
    validateTemplate(template);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    throw ApiError.validation(field, `${field} is not a valid template: ${err.message}`);
  }
}

const blankToNull = (subject: string | null | undefined): string | null =>
  subject === undefined || subject === null || subject.trim() === '' ? null : wellFormed(subject);

/**
 * Checks a whole steps array: positions 1..n in array order, step 1 (and each of its variants) has a
 * non-blank subject, every subject and body (variants' included) parses as a Liquid template. Errors
 * name the step by 0-based index (`steps.N.body`, `steps.N.variants.M.body`).
 */
export function normaliseSteps(steps: SequenceStepDto[]): SequenceStep[] {
  return steps.map((step, i) => {
    if (step.position !== i + 1) {
      throw ApiError.validation(
        `steps.${i}.position`,
        `steps.${i}.position must be ${i + 1}: positions run from 1 without gaps, in array order`,
      );
    }
    const contents = [
      { at: `steps.${i}`, subject: step.subject ?? null, body: step.body },
      ...(step.variants ?? []).map((v, j) => ({
        at: `steps.${i}.variants.${j}`,
        subject: v.subject ?? null,
        body: v.body,
      })),
    ];
    for (const c of contents) {
      if (i === 0 && (c.subject === null || c.subject.trim() === '')) {
        throw ApiError.validation(
          `${c.at}.subject`,
          `${c.at}.subject is required: the first step starts the thread`,
        );
      }
      checkTemplate(`${c.at}.subject`, c.subject);
      checkTemplate(`${c.at}.body`, c.body);
    }
    const normalised: SequenceStep = {
      position: step.position,
      delay_minutes: step.delay_minutes,
      subject: blankToNull(step.subject),
      body: wellFormed(step.body),
    };
    if (step.variants?.length) {
      normalised.variants = step.variants.map((v) => ({
        subject: blankToNull(v.subject),
        body: wellFormed(v.body),
      }));
    }
    return normalised;
  });
}

/**
 * Test-renders every step (subject, then body, as the engine sends them) and every variant for the
 * sample contact. Time is one budget for the whole save (RENDER_BUDGET_MS, one retry), shared by
 * every step and variant, so a save costs bounded CPU whatever its shape (CONTRACT §21); bytes are
 * per step and per variant (each is one message). Over either → 422 naming the field where it ran
 * out (`steps.N.body`, `steps.N.variants.M.body`). The event loop turns between renders.
 */
export async function checkRenderBudget(steps: SequenceStep[]): Promise<void> {
  const vars = sampleTemplateVars();
  const clock = new RenderClock();
  let first = true;
  for (const [i, step] of steps.entries()) {
    const contents = [
      { at: `steps.${i}`, subject: step.subject, body: step.body },
      ...(step.variants ?? []).map((v, j) => ({ at: `steps.${i}.variants.${j}`, ...v })),
    ];
    for (const c of contents) {
      if (!first) await nextTurn();
      first = false;
      const budget = renderBudget(clock);
      for (const [field, template] of [
        ['subject', c.subject],
        ['body', c.body],
      ] as const) {
        if (template === null) continue;
        try {
          await renderTemplate(template, vars, budget);
        } catch (err) {
          if (!(err instanceof TemplateError)) throw err;
          throw ApiError.validation(
            `${c.at}.${field}`,
            `${c.at}.${field} is over the template budget when rendered for a sample contact (every field 100 characters; one ${RENDER_BUDGET_MS} ms budget for a whole save, all steps and variants together): ${err.message}`,
          );
        }
      }
    }
  }
}

/** normaliseSteps, then the render budget check. */
async function checkedSteps(steps: SequenceStepDto[]): Promise<SequenceStep[]> {
  const normalised = normaliseSteps(steps);
  await checkRenderBudget(normalised);
  return normalised;
}

@Injectable()
export class SequencesService {
  constructor(
    private readonly sequences: SequencesRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async create(workspaceId: WorkspaceId, body: CreateSequenceDto): Promise<SequenceView> {
    const steps = await checkedSteps(body.steps ?? []);
    const row = await this.sequences.insert(workspaceId, { name: body.name, steps });
    return toSequenceView(row);
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<SequenceView> {
    const row = await this.sequences.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toSequenceView(row);
  }

  async list(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<Sequence>> {
    return this.sequences.page(workspaceId, query);
  }

  async update(workspaceId: WorkspaceId, id: number, body: UpdateSequenceDto): Promise<SequenceView> {
    const steps = body.steps !== undefined ? await checkedSteps(body.steps) : undefined;
    return this.db.transaction(async (manager) => {
      const row = await this.sequences.findOneForUpdate(workspaceId, { id }, manager);
      if (!row) throw ApiError.notFound();
      if (steps !== undefined && row.status !== 'draft') {
        throw ApiError.conflict(`Steps can only change while the sequence is draft; it is ${row.status}`);
      }
      const patch: Partial<Sequence> = {};
      if (body.name !== undefined) patch.name = body.name;
      if (steps !== undefined) patch.steps = steps;
      if (body.status === 'archived') patch.status = 'archived';
      if (Object.keys(patch).length) {
        await this.sequences.applyChanges(workspaceId, id, patch, manager);
      }
      const fresh = await this.sequences.findOne(workspaceId, { id }, manager);
      return toSequenceView(fresh!);
    });
  }

  async publish(workspaceId: WorkspaceId, id: number): Promise<SequenceView> {
    return this.db.transaction(async (manager) => {
      const row = await this.sequences.findOneForUpdate(workspaceId, { id }, manager);
      if (!row) throw ApiError.notFound();
      if (row.status !== 'draft') {
        throw ApiError.conflict(`Only a draft sequence can be published; it is ${row.status}`);
      }
      if (!row.steps?.length)
        throw ApiError.validation('steps', 'A sequence needs at least one step to publish');
      await this.sequences.markPublished(workspaceId, id, new Date(), manager);
      const fresh = await this.sequences.findOne(workspaceId, { id }, manager);
      return toSequenceView(fresh!);
    });
  }
}
