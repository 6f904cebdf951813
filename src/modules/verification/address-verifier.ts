/**
 * One address's verdict (CONTRACT §24): the offline checks (address-checks.ts), then where its
 * domain's mail goes (MailDns: cached, shared, bounded), within an overall deadline. One instance per
 * process, so every contact and workspace shares the DNS cache.
 */
import { Injectable } from '@nestjs/common';
import type { VerificationReason } from '../contacts/entities/contact.entity.js';
import { checkOffline } from './address-checks.js';
import { MailDns } from './mail-dns.js';
import { verdictOf, type Verdict } from './verdict.js';

@Injectable()
export class AddressVerifier {
  readonly dns = new MailDns();

  async verify(email: string): Promise<Verdict> {
    const offline = checkOffline(email);
    if (!offline.ok) return verdictOf(['syntax'], null);
    const reasons: VerificationReason[] = [];
    const answer = await this.dns.lookup(offline.domain);
    if (answer.kind === 'no_domain' || answer.kind === 'no_mx' || answer.kind === 'null_mx')
      reasons.push(answer.kind);
    else if (answer.kind === 'unavailable') reasons.push('dns_unavailable');
    reasons.push(...offline.reasons);
    return verdictOf(reasons, offline.suggestion);
  }
}
