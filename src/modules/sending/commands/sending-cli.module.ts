import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../../api-keys/api-keys.module.js';
import { CampaignsModule } from '../../campaigns/campaigns.module.js';
import { ContactsModule } from '../../contacts/contacts.module.js';
import { EnrollmentsModule } from '../../enrollments/enrollments.module.js';
import { EnrollmentScheduleModule } from '../../enrollments/reevaluate-deferred.js';
import { InboxesModule } from '../../inboxes/inboxes.module.js';
import { OrganizationsModule } from '../../organizations/organizations.module.js';
import { SequencesModule } from '../../sequences/sequences.module.js';
import { WorkspacesModule } from '../../workspaces/workspaces.module.js';
import { DemoCommand } from './demo.command.js';
import { MailSinkCommand } from './mail-sink.command.js';

/** `demo` (a whole local tenant, through the owning modules' services) and `mail:sink`. */
@Module({
  imports: [
    OrganizationsModule,
    WorkspacesModule,
    ApiKeysModule,
    InboxesModule,
    SequencesModule,
    CampaignsModule,
    EnrollmentScheduleModule,
    ContactsModule,
    EnrollmentsModule,
  ],
  providers: [DemoCommand, MailSinkCommand],
})
export class SendingCliModule {}
