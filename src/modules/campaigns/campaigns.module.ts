import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InboxesModule } from '../inboxes/inboxes.module.js';
import { SequencesModule } from '../sequences/sequences.module.js';
import { BounceProtection } from './bounce-protection.js';
import { CampaignsController } from './campaigns.controller.js';
import { CampaignGuardsRepository, CampaignsRepository } from './campaigns.repository.js';
import { CampaignsService } from './campaigns.service.js';
import { Campaign } from './entities/campaign.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([Campaign]), SequencesModule, InboxesModule],
  controllers: [CampaignsController],
  providers: [CampaignsRepository, CampaignsService, CampaignGuardsRepository, BounceProtection],
  exports: [CampaignsRepository, CampaignsService, BounceProtection],
})
export class CampaignsModule {}
