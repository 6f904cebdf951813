import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys.module.js';
import { KeyCreateCommand, KeyListCommand, KeyRevokeCommand, KeyRotateCommand } from './key.commands.js';

/** `key:create`, `key:list`, `key:rotate`, `key:revoke`. */
@Module({
  imports: [ApiKeysModule],
  providers: [KeyCreateCommand, KeyListCommand, KeyRotateCommand, KeyRevokeCommand],
})
export class ApiKeysCliModule {}
