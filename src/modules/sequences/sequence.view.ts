/** A sequence as the API shows it. */
import { Sequence, type SequenceStep } from './entities/sequence.entity.js';

export type SequenceStepView = Omit<SequenceStep, 'variants'> & {
  variants: Array<{ subject: string | null; body: string }>;
};

export interface SequenceView {
  id: number;
  name: string;
  status: Sequence['status'];
  steps: SequenceStepView[];
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export const toSequenceView = (s: Sequence): SequenceView => ({
  id: s.id,
  name: s.name,
  status: s.status,
  steps: (s.steps ?? []).map((st) => ({
    position: st.position,
    delay_minutes: st.delay_minutes,
    subject: st.subject ?? null,
    body: st.body,
    variants: (st.variants ?? []).map((v) => ({ subject: v.subject ?? null, body: v.body })),
  })),
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
  published_at: s.publishedAt?.toISOString() ?? null,
});
