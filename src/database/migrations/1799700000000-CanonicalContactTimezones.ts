import type { MigrationInterface, QueryRunner } from 'typeorm';
import { canonicalTimezone } from '../../common/time/time-zones.js';

/** Distinct spellings rewritten per statement. */
const BATCH = 1000;

/**
 * Contacts' `timezone` is stored as the canonical IANA name since issue 24 (`uS/EaStErN` →
 * `America/New_York`); rows written before were stored as typed. This rewrites them: the distinct
 * stored spellings are read once, canonicalised by the service's own rule (common/time/time-zones.ts),
 * and each batch of spellings that changes is rewritten in one statement. A value the runtime does
 * not know as a zone is left as it is (the send path reads the schedule's zone for it). Not undone by
 * `down`: the typed spellings are not kept, and the canonical names mean the same zones.
 */
export class CanonicalContactTimezones1799700000000 implements MigrationInterface {
  name = 'CanonicalContactTimezones1799700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const stored = (await queryRunner.query(
      `SELECT DISTINCT timezone FROM contacts WHERE timezone IS NOT NULL`,
    )) as Array<{ timezone: string }>;
    const changes: Array<[string, string]> = [];
    for (const { timezone } of stored) {
      const canonical = canonicalTimezone(timezone);
      if (canonical !== undefined && canonical !== timezone) changes.push([timezone, canonical]);
    }
    for (let i = 0; i < changes.length; i += BATCH) {
      const batch = changes.slice(i, i + BATCH);
      await queryRunner.query(
        `UPDATE contacts c SET timezone = m.canonical
         FROM unnest($1::text[], $2::text[]) AS m(typed, canonical)
         WHERE c.timezone = m.typed`,
        [batch.map(([typed]) => typed), batch.map(([, canonical]) => canonical)],
      );
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: see above.
  }
}
