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
  renderBudget,
  renderTemplate,
  sampleTemplateVars,
  TemplateError,
  validateTemplate,
} from './templates.js';
import { wellFormed } from './dto/text-rules.js';
import { toSequenceView, type SequenceView } from './sequence.view.js';

/**
 * Checks a whole steps array: positions 1..n in array order, step 1 has a non-blank subject, every
 * subject and body parses as a Liquid template. Errors name the step by 0-based index.
 */
export function normaliseSteps(steps: SequenceStepDto[]): SequenceStep[] {
  return steps.map((step, i) => {
    if (step.position !== i + 1) {
      throw ApiError.validation(
        `steps.${i}.position`,
        `steps.${i}.position must be ${i + 1}: positions run from 1 without gaps, in array order`,
      );
    }
    const subject = step.subject === undefined || step.subject === null ? null : step.subject;
    if (i === 0 && (subject === null || subject.trim() === '')) {
      throw ApiError.validation(
        'steps.0.subject',
        'steps.0.subject is required: the first step starts the thread',
      );
    }
    for (const [field, template] of [
      ['subject', subject],
      ['body', step.body],
    ] as const) {
      if (template === null) continue;
      try {
        validateTemplate(template);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        throw ApiError.validation(
          `steps.${i}.${field}`,
          `steps.${i}.${field} is not a valid template: ${err.message}`,
        );
      }
    }
    return {
      position: step.position,
      delay_minutes: step.delay_minutes,
      subject: subject === null || subject.trim() === '' ? null : wellFormed(subject),
      body: wellFormed(step.body),
    };
  });
}

/**
 * Test-renders every step (subject, then body, under one step budget, as the engine sends them) for
 * the sample contact: over the budget → 422 naming the step's field. The event loop
 * turns between steps, so a sequence of 50 heavy steps does not hold other requests for seconds.
 */
export async function checkRenderBudget(steps: SequenceStep[]): Promise<void> {
  const vars = sampleTemplateVars();
  for (const [i, step] of steps.entries()) {
    if (i > 0) await nextTurn();
    const budget = renderBudget();
    for (const [field, template] of [
      ['subject', step.subject],
      ['body', step.body],
    ] as const) {
      if (template === null) continue;
      try {
        await renderTemplate(template, vars, budget);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        throw ApiError.validation(
          `steps.${i}.${field}`,
          `steps.${i}.${field} is over the template budget when rendered for a sample contact (every field 100 characters): ${err.message}`,
        );
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

  async create(workspaceId: string, body: CreateSequenceDto): Promise<SequenceView> {
    const steps = await checkedSteps(body.steps ?? []);
    const row = await this.sequences.insert(workspaceId, { name: body.name, steps });
    return toSequenceView(row);
  }

  async show(workspaceId: string, id: number): Promise<SequenceView> {
    const row = await this.sequences.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toSequenceView(row);
  }

  async list(workspaceId: string, query: PageQueryDto): Promise<Page<Sequence>> {
    return this.sequences.page(workspaceId, query);
  }

  async update(workspaceId: string, id: number, body: UpdateSequenceDto): Promise<SequenceView> {
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
        await this.sequences.update(workspaceId, { id }, patch, manager);
      }
      const fresh = await this.sequences.findOne(workspaceId, { id }, manager);
      return toSequenceView(fresh!);
    });
  }

  async publish(workspaceId: string, id: number): Promise<SequenceView> {
    return this.db.transaction(async (manager) => {
      const row = await this.sequences.findOneForUpdate(workspaceId, { id }, manager);
      if (!row) throw ApiError.notFound();
      if (row.status !== 'draft') {
        throw ApiError.conflict(`Only a draft sequence can be published; it is ${row.status}`);
      }
      if (!row.steps?.length)
        throw ApiError.validation('steps', 'A sequence needs at least one step to publish');
      await this.sequences.update(
        workspaceId,
        { id },
        { status: 'published', publishedAt: new Date() },
        manager,
      );
      const fresh = await this.sequences.findOne(workspaceId, { id }, manager);
      return toSequenceView(fresh!);
    });
  }
}
