import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sequence } from './entities/sequence.entity.js';
import { SequencesController } from './sequences.controller.js';
import { SequencesRepository } from './sequences.repository.js';
import { SequencesService } from './sequences.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Sequence])],
  controllers: [SequencesController],
  providers: [SequencesRepository, SequencesService],
  exports: [SequencesRepository, SequencesService],
})
export class SequencesModule {}
