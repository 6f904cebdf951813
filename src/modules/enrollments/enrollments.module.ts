import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the enrollments issue fills it in. */
@Module({})
export class EnrollmentsModule {}
