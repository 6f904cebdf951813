/** Source-IP restriction with ipaddr.js: addresses normalised with process() before CIDR matching. */
import ipaddr from 'ipaddr.js';

export function isValidCidr(value: string): boolean {
  try {
    parseRange(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Strict parsing of a rule: IPv4 only in four-part decimal form. ipaddr.js also accepts the legacy
 * inet_aton forms (`10.1` = 10.0.0.1, `010.0.0.1` = 8.0.0.1 in octal, hex), which would silently
 * allow an address the operator never meant.
 */
function parseRange(value: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) throw new Error('bad CIDR');
  if (!ipaddr.IPv6.isValid(address) && !ipaddr.IPv4.isValidFourPartDecimal(address)) {
    throw new Error('bad address');
  }
  if (bits !== undefined) return ipaddr.parseCIDR(value);
  const addr = ipaddr.parse(address);
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

export function ipAllowed(ip: string | undefined, allowed: string[]): boolean {
  if (allowed.length === 0) return true;
  if (!ip) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return allowed.some((cidr) => {
    try {
      const [range, bits] = parseRange(cidr);
      const normalised =
        range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()
          ? ([(range as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)] as const)
          : ([range, bits] as const);
      return addr.kind() === normalised[0].kind() && addr.match([normalised[0], normalised[1]] as never);
    } catch {
      return false;
    }
  });
}
