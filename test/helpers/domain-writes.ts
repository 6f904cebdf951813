/**
 * The writers tests call directly inside their own transaction, with the signatures they had as
 * free functions (manager first). In the service they are injected (`MetricCounters`,
 * `BounceProtection`, `ContactUpsert`, `SuppressionStore`, `Outbox`); their repositories are stateless
 * (every statement runs on the manager passed), so one set built here behaves as the application's.
 */
import { MetricCounters } from '../../src/modules/analytics/metrics.js';
import {
  DailyMetricCountersRepository,
  StepMetricCountersRepository,
} from '../../src/modules/analytics/analytics.repository.js';
import { BounceProtection } from '../../src/modules/campaigns/bounce-protection.js';
import { CampaignGuardsRepository } from '../../src/modules/campaigns/campaigns.repository.js';
import { ContactUpsert } from '../../src/modules/contacts/contact-upsert.js';
import { ContactWritesRepository } from '../../src/modules/contacts/contact-writes.repository.js';
import { EventsRepository } from '../../src/modules/events/events.repository.js';
import { Outbox } from '../../src/modules/events/outbox.js';
import { SuppressionStore } from '../../src/modules/suppressions/suppression-store.js';
import { SuppressionListRepository } from '../../src/modules/suppressions/suppressions.repository.js';

export { validateContactRow } from '../../src/modules/contacts/contact-upsert.js';

const counters = new MetricCounters(new DailyMetricCountersRepository(), new StepMetricCountersRepository());
const outbox = new Outbox(new EventsRepository());
const suppressions = new SuppressionStore(new SuppressionListRepository(), new ContactWritesRepository());
const contactUpsert = new ContactUpsert(new ContactWritesRepository(), suppressions, outbox);
const bounceProtection = new BounceProtection(new CampaignGuardsRepository());

export const bumpMetric: MetricCounters['bump'] = (...a) => counters.bump(...a);
export const bumpStepMetrics: MetricCounters['bumpSteps'] = (...a) => counters.bumpSteps(...a);
export const recordEvent: Outbox['record'] = (...a) => outbox.record(...a);
export const recordEvents: Outbox['recordMany'] = (...a) => outbox.recordMany(...a);
export const suppressAddress: SuppressionStore['suppressAddress'] = (...a) =>
  suppressions.suppressAddress(...a);
export const upsertContacts: ContactUpsert['upsert'] = (...a) => contactUpsert.upsert(...a);
export const pauseOnBounceRate: BounceProtection['pauseOnBounceRate'] = (...a) =>
  bounceProtection.pauseOnBounceRate(...a);
