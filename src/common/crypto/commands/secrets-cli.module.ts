import { Module } from '@nestjs/common';
import { SecretsReencryptCommand } from './secrets-reencrypt.command.js';

/** `secrets:reencrypt`. */
@Module({ providers: [SecretsReencryptCommand] })
export class SecretsCliModule {}
