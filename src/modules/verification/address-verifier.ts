/**
 * One address's verdict (CONTRACT §24): the offline checks (address-checks.ts), then where its
 * domain's mail goes (MailDns: cached, shared, bounded), then, with VERIFY_SMTP_PROBE=true, the SMTP
 * probe of the best MX host (mailbox-prober.ts), all within an overall deadline. One instance per
 * process, so every contact and workspace shares the DNS cache.
 */
import { Injectable } from '@nestjs/common';
import type { VerificationReason } from '../contacts/entities/contact.entity.js';
import { checkOffline } from './address-checks.js';
import { MailboxProber } from './mailbox-prober.js';
import { MailDns } from './mail-dns.js';
import { verdictOf, type Verdict } from './verdict.js';

/** A check's overall deadline: the verify route answers within 10 s (DNS alone has 8 s of it). */
export const CHECK_DEADLINE_MS = 8500;

@Injectable()
export class AddressVerifier {
  readonly dns = new MailDns();

  constructor(private readonly prober: MailboxProber) {}

  async verify(email: string): Promise<Verdict> {
    const startedAt = Date.now();
    const offline = checkOffline(email);
    if (!offline.ok) return verdictOf(['syntax'], null);
    const reasons: VerificationReason[] = [];
    let inconclusive = false;
    const answer = await this.dns.lookup(offline.domain);
    if (answer.kind === 'no_domain' || answer.kind === 'no_mx' || answer.kind === 'null_mx')
      reasons.push(answer.kind);
    else if (answer.kind === 'unavailable') reasons.push('dns_unavailable');
    else if ((answer.kind === 'mx' || answer.kind === 'implicit') && this.prober.enabled) {
      const outcome = await this.prober.probe(
        offline.local,
        offline.domain,
        answer.hosts[0],
        startedAt + CHECK_DEADLINE_MS,
      );
      if (outcome === 'mailbox_unknown' || outcome === 'catch_all') reasons.push(outcome);
      else inconclusive = outcome === 'inconclusive';
    }
    reasons.push(...offline.reasons);
    return verdictOf(reasons, offline.suggestion, inconclusive);
  }
}
