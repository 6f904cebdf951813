/**
 * Address verification (CONTRACT §24): the background pass that checks due contacts (new ones,
 * `unknown` ones again an hour later, those a re-check asked for), the check the verify route runs
 * now, and the re-checks asked for many contacts. Contacts' columns are written through the contacts
 * module's `ContactVerificationRepository`.
 */
import { Injectable, Optional } from '@nestjs/common';
import { ForegroundWork } from '../../common/lifecycle/draining.js';
import { ApiError } from '../../common/http/api-error.js';
import { logger } from '../../common/logging/logger.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';
import {
  ContactVerificationRepository,
  type ClaimedForVerification,
  type VerdictWrite,
} from '../contacts/contact-verification.repository.js';
import type { ContactListFilter } from '../contacts/contacts.repository.js';
import { AddressVerifier } from './address-verifier.js';
import type { Verdict } from './verdict.js';

/** Contacts claimed by one pass. */
export const VERIFY_CLAIM_BATCH = 200;
/** Checks run at once by one pass (DNS lookups are bounded separately, per process). */
const CHECK_CONCURRENCY = 32;
/** How long a claim holds: longer than a pass of CLAIM_BATCH checks at their deadline. */
const CLAIM_LEASE_SECONDS = 300;
/** An `unknown` verdict is checked again this much later. */
export const RECHECK_UNKNOWN_MS = 60 * 60 * 1000;

const nextDueOf = (v: Verdict, now = Date.now()): Date | null =>
  v.status === 'unknown' ? new Date(now + RECHECK_UNKNOWN_MS) : null;

@Injectable()
export class VerificationService {
  constructor(
    private readonly contacts: ContactVerificationRepository,
    private readonly verifier: AddressVerifier,
    @Optional() private readonly foreground?: ForegroundWork,
  ) {}

  /**
   * One background pass: true when a full batch was claimed (more may be waiting, and the loop runs
   * again at once), except while an import runs in this process: then the loop waits its interval
   * between batches (100 checks a second at most, far above §24's 1,000 a minute), so checking does not
   * take the import's CPU (docs/verification.md, "Measured").
   */
  async pass(): Promise<boolean> {
    const claimed = await this.contacts.claimDueAcrossWorkspaces(VERIFY_CLAIM_BATCH, CLAIM_LEASE_SECONDS);
    if (claimed.length === 0) return false;
    const writes: VerdictWrite[] = new Array<VerdictWrite>(claimed.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < claimed.length) {
        const i = next++;
        writes[i] = await this.verdictFor(claimed[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHECK_CONCURRENCY, claimed.length) }, worker));
    await this.contacts.saveVerdictsAcrossWorkspaces(writes);
    return claimed.length >= VERIFY_CLAIM_BATCH && !this.foreground?.busy;
  }

  /**
   * `POST /contacts/{id}/verify`: checks now (bounded by the DNS deadline) and stores the verdict. A
   * verdict a hard bounce set is kept as it is, without a check: the bounce is stronger evidence.
   */
  async verifyNow(workspaceId: WorkspaceId, id: number): Promise<void> {
    const address = await this.contacts.addressOf(workspaceId, id);
    if (address === null) throw ApiError.notFound();
    if (address.bounced) return;
    const verdict = await this.verifier.verify(address.email);
    await this.contacts.saveVerdictsAcrossWorkspaces([
      { workspaceId, id, ...verdict, nextDueAt: nextDueOf(verdict), lease: null },
    ]);
  }

  /** `POST /contacts/verify`: the contacts named (or selected by the list filters) are checked in the background. */
  async requeue(
    workspaceId: WorkspaceId,
    ids: number[] | undefined,
    filter: ContactListFilter,
  ): Promise<number> {
    return ids !== undefined
      ? this.contacts.requeueIds(workspaceId, ids)
      : this.contacts.requeueMatching(workspaceId, filter);
  }

  private async verdictFor(c: ClaimedForVerification): Promise<VerdictWrite> {
    let verdict: Verdict;
    try {
      verdict = await this.verifier.verify(c.email);
    } catch (err) {
      logger.warn({ contactId: c.id, err: (err as Error).message }, 'verification: check failed');
      verdict = { status: 'unknown', reasons: ['dns_unavailable'], suggestion: null };
    }
    return {
      workspaceId: c.workspaceId,
      id: c.id,
      ...verdict,
      nextDueAt: nextDueOf(verdict),
      lease: c.lease,
    };
  }
}
