import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BearerStrategy } from '../../common/auth/bearer.strategy.js';
import { ApiKeyAuthService } from './api-key-auth.service.js';
import { ApiKeysService } from './api-keys.service.js';
import { ApiKey } from './entities/api-key.entity.js';
import { MeController } from './me.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), PassportModule],
  controllers: [MeController],
  providers: [ApiKeysService, ApiKeyAuthService, BearerStrategy],
  exports: [ApiKeysService, ApiKeyAuthService, BearerStrategy],
})
export class ApiKeysModule {}
