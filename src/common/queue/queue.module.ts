import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { appConfig } from '../../config/app-config.js';

/** Bull on Redis, configured at start-up (forRootAsync) with this run's key prefix. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      useFactory: () => ({
        url: appConfig().redisUrl,
        prefix: `${appConfig().redisPrefix}:bull`,
        defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 5000 },
      }),
    }),
  ],
  exports: [BullModule],
})
export class QueueModule {}
