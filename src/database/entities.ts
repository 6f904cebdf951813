/**
 * Every entity, for the tools that run without Nest (migrations, the drift check, migration:generate).
 * The applications load entities from their modules (`TypeOrmModule.forFeature`); the schema test
 * fails when this list and the modules' disagree, so a new entity is registered in its module and here.
 */
import { IdempotencyRecord } from '../common/idempotency/idempotency-record.entity.js';
import { DailyMetric } from '../modules/analytics/entities/daily-metric.entity.js';
import { StepMetric } from '../modules/analytics/entities/step-metric.entity.js';
import { ApiKey } from '../modules/api-keys/entities/api-key.entity.js';
import { Campaign } from '../modules/campaigns/entities/campaign.entity.js';
import { Contact } from '../modules/contacts/entities/contact.entity.js';
import { Enrollment } from '../modules/enrollments/entities/enrollment.entity.js';
import { EventRecord } from '../modules/events/entities/event.entity.js';
import { ImportBatch } from '../modules/imports/entities/import-batch.entity.js';
import { ImportRow } from '../modules/imports/entities/import-row.entity.js';
import { Inbox } from '../modules/inboxes/entities/inbox.entity.js';
import { OAuthFlow } from '../modules/inboxes/entities/oauth-flow.entity.js';
import { Organization } from '../modules/organizations/entities/organization.entity.js';
import { Subsequence } from '../modules/reactions/entities/subsequence.entity.js';
import { Sequence } from '../modules/sequences/entities/sequence.entity.js';
import { Suppression } from '../modules/suppressions/entities/suppression.entity.js';
import { Message } from '../modules/threads/entities/message.entity.js';
import { Thread } from '../modules/threads/entities/thread.entity.js';
import { WebhookDelivery } from '../modules/webhooks/entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from '../modules/webhooks/entities/webhook-endpoint.entity.js';
import { Workspace } from '../modules/workspaces/entities/workspace.entity.js';
import { InboxPacing } from '../modules/sending/entities/inbox-pacing.entity.js';
import { SendCounter } from '../modules/sending/entities/send-counter.entity.js';

export const ENTITIES = [
  ApiKey,
  Campaign,
  Contact,
  DailyMetric,
  Enrollment,
  EventRecord,
  IdempotencyRecord,
  ImportBatch,
  ImportRow,
  Inbox,
  Message,
  OAuthFlow,
  Organization,
  Sequence,
  Subsequence,
  Suppression,
  Thread,
  WebhookDelivery,
  WebhookEndpoint,
  Workspace,
  InboxPacing,
  SendCounter,
  StepMetric,
];
