import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BearerStrategy } from '../../common/auth/bearer.strategy.js';
import { PRINCIPAL_RESOLVER } from '../../common/auth/principal-resolver.js';
import { ApiKeyAuthService } from './api-key-auth.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { ApiKey } from './entities/api-key.entity.js';
import { MeController } from './me.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), PassportModule],
  controllers: [MeController],
  providers: [
    ApiKeysRepository,
    ApiKeysService,
    ApiKeyAuthService,
    { provide: PRINCIPAL_RESOLVER, useExisting: ApiKeyAuthService },
    BearerStrategy,
  ],
  exports: [ApiKeysRepository, ApiKeysService, ApiKeyAuthService, BearerStrategy],
})
export class ApiKeysModule {}
