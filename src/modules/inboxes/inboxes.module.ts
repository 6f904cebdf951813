import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Inbox } from './entities/inbox.entity.js';
import { OAuthFlow } from './entities/oauth-flow.entity.js';
import { InboxOAuthController, OAuthCallbackController } from './oauth/inbox-oauth.controller.js';
import { InboxOAuthService } from './oauth/inbox-oauth.service.js';
import { InboxTokens } from './oauth/inbox-tokens.service.js';
import { OAuthFlowsRepository } from './oauth/oauth-flows.repository.js';
import { InboxesController } from './inboxes.controller.js';
import { InboxesRepository } from './inboxes.repository.js';
import { InboxStateRepository } from './inbox-state.repository.js';
import { InboxesService } from './inboxes.service.js';
import { InboxHealthService } from './health/inbox-health.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Inbox, OAuthFlow]), EventsModule],
  controllers: [InboxOAuthController, OAuthCallbackController, InboxesController],
  providers: [
    InboxesRepository,
    InboxStateRepository,
    InboxesService,
    InboxHealthService,
    OAuthFlowsRepository,
    InboxOAuthService,
    InboxTokens,
  ],
  exports: [InboxesRepository, InboxStateRepository, InboxesService, InboxTokens],
})
export class InboxesModule {}
