/**
 * Whether a resolver's "no such domain" can be believed. A machine without a working resolver (no
 * outside network, a captive or broken one) often answers NXDOMAIN for every name; believed, every
 * contact of the installation would be `invalid` and no campaign would send a step. So an NXDOMAIN is
 * taken as `no_domain` only from a resolver seen to work: one that answered records for some name
 * within the last hour, or that knows the root zone (NS of `.`: an answer, or an empty one from a
 * server that has the root as a parent of its names). Otherwise the check is `dns_unavailable`, the
 * verdict `unknown` (sent, and checked again later). The root is asked at most once a minute.
 */
import type { promises as dns } from 'node:dns';

const WORKING_FOR_MS = 60 * 60 * 1000;
const ROOT_RECHECK_MS = 60 * 1000;

const code = (err: unknown): string => (err as { code?: string } | null)?.code ?? '';

export class ResolverTrust {
  private answeredAt = 0;
  private rootCheckedAt = 0;
  private rootKnown = false;
  private rootCheck: Promise<boolean> | undefined;

  constructor(private readonly resolver: Pick<dns.Resolver, 'resolveNs'>) {}

  /** The resolver answered records for some name: it works. */
  answered(): void {
    this.answeredAt = Date.now();
  }

  /** True when an NXDOMAIN from this resolver can be believed. */
  async believesNxDomain(): Promise<boolean> {
    const now = Date.now();
    if (now - this.answeredAt < WORKING_FOR_MS) return true;
    if (now - this.rootCheckedAt < ROOT_RECHECK_MS) return this.rootKnown;
    this.rootCheck ??= this.resolver
      .resolveNs('.')
      .then(
        (ns) => ns.length > 0,
        (err: unknown) => code(err) === 'ENODATA',
      )
      .then((known) => {
        this.rootKnown = known;
        this.rootCheckedAt = Date.now();
        return known;
      })
      .finally(() => (this.rootCheck = undefined));
    return this.rootCheck;
  }
}
