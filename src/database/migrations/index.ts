/**
 * Every migration, in order. Generate new ones with `npm run migration:generate -- Name`, then list
 * them here (append one import and one array entry; never edit a migration that has landed).
 */
import { Init1795318086464 } from './1795318086464-Init.js';
import { WorkspaceData1795318342163 } from './1795318342163-WorkspaceData.js';
import { SendingCounters1795318644311 } from './1795318644311-SendingCounters.js';
import { WebhookDeliveryLog1795318744410 } from './1795318744410-WebhookDeliveryLog.js';
import { LighterOutbox1795327746302 } from './1795327746302-LighterOutbox.js';
import { ContactCap1795400200000 } from './1795400200000-ContactCap.js';
import { ImapSkippedOversize1795400500000 } from './1795400500000-ImapSkippedOversize.js';
import { SendOutcomes1799000300000 } from './1799000300000-SendOutcomes.js';
import { RetentionIndexes1799100000000 } from './1799100000000-RetentionIndexes.js';
import { BigintIds1799200000000 } from './1799200000000-BigintIds.js';
import { ListFilterIndexes1799300000000 } from './1799300000000-ListFilterIndexes.js';
import { Conversations1799400000000 } from './1799400000000-Conversations.js';
import { CampaignFeatures1799500000000 } from './1799500000000-CampaignFeatures.js';
import { ManualReplySweep1799600000000 } from './1799600000000-ManualReplySweep.js';
import { CanonicalContactTimezones1799700000000 } from './1799700000000-CanonicalContactTimezones.js';
import { MailReading1799800000000 } from './1799800000000-MailReading.js';
import { ReplyCategories1799950000000 } from './1799950000000-ReplyCategories.js';
import { InboxConnections1799970000000 } from './1799970000000-InboxConnections.js';
import { FairReplyCategories1800100000000 } from './1800100000000-FairReplyCategories.js';
import { SequencesThatReact1800200000000 } from './1800200000000-SequencesThatReact.js';
import { InboxOAuthSubject1800300000000 } from './1800300000000-InboxOAuthSubject.js';
import { InboxHealthCheckClaim1800350000000 } from './1800350000000-InboxHealthCheckClaim.js';
import { AddressVerification1800400000000 } from './1800400000000-AddressVerification.js';
import { ProviderApis1800500000000 } from './1800500000000-ProviderApis.js';
import { StepMetricsSubsequence1800600000000 } from './1800600000000-StepMetricsSubsequence.js';
import { BouncedVerdict1800740000000 } from './1800740000000-BouncedVerdict.js';

export const MIGRATIONS: Array<new () => object> = [
  Init1795318086464,
  WorkspaceData1795318342163,
  SendingCounters1795318644311,
  WebhookDeliveryLog1795318744410,
  LighterOutbox1795327746302,
  ContactCap1795400200000,
  ImapSkippedOversize1795400500000,
  SendOutcomes1799000300000,
  RetentionIndexes1799100000000,
  BigintIds1799200000000,
  ListFilterIndexes1799300000000,
  Conversations1799400000000,
  CampaignFeatures1799500000000,
  ManualReplySweep1799600000000,
  CanonicalContactTimezones1799700000000,
  MailReading1799800000000,
  ReplyCategories1799950000000,
  InboxConnections1799970000000,
  FairReplyCategories1800100000000,
  SequencesThatReact1800200000000,
  InboxOAuthSubject1800300000000,
  InboxHealthCheckClaim1800350000000,
  AddressVerification1800400000000,
  ProviderApis1800500000000,
  StepMetricsSubsequence1800600000000,
  BouncedVerdict1800740000000,
];
