/**
 * Free-mail providers (gmail.com, outlook.com, …), from the maintained `free-email-domains` package
 * (about 14,000 domains: free providers and disposable-address services). A reply from such a domain
 * says nothing about a company, so stopping on reply for the whole domain never applies to them.
 *
 * The package's own postinstall script would download fresh lists from third-party URLs at install
 * time (failing without network, and making installs unreproducible); package.json's `allowScripts`
 * denies it, so the list used is the one published in the version the lock file pins.
 */
import freeEmailDomains from 'free-email-domains';

const FREE = new Set<string>(freeEmailDomains.map((d: string) => d.toLowerCase()));

/** The domain of an address, lower case; null when there is none. */
export function emailDomain(address: string | null | undefined): string | null {
  if (!address) return null;
  const at = address.lastIndexOf('@');
  if (at < 1 || at === address.length - 1) return null;
  const domain = address
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  return /^[a-z0-9.-]+$/.test(domain) && domain.includes('.') ? domain : null;
}

/** True for a free-mail (or disposable-address) domain, subdomains included (`mail.yahoo.co.uk`'s parent). */
export function isFreeMailDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  if (FREE.has(d)) return true;
  // A subdomain of a free provider (e.g. an ISP's regional host) is as personal as the provider.
  for (let i = d.indexOf('.'); i >= 0 && i < d.length - 1; i = d.indexOf('.', i + 1)) {
    const parent = d.slice(i + 1);
    if (parent.includes('.') && FREE.has(parent)) return true;
  }
  return false;
}

/** How many domains the list holds (the CI check that the package's list loaded). */
export const freeMailDomainCount = (): number => FREE.size;
