/** Every entity, listed once. Add a new entity here (one line per entity, keep alphabetical by module). */
import { IdempotencyRecord } from '../common/idempotency/idempotency-record.entity.js';
import { ApiKey } from '../modules/api-keys/entities/api-key.entity.js';
import { EventRecord } from '../modules/events/entities/event.entity.js';
import { Organization } from '../modules/organizations/entities/organization.entity.js';
import { Workspace } from '../modules/workspaces/entities/workspace.entity.js';

export const ENTITIES = [ApiKey, EventRecord, IdempotencyRecord, Organization, Workspace];
