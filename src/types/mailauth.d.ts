/** Types for the parts of mailauth's library used without a declaration of their own. */
declare module 'mailauth/lib/tools.js' {
  /** Reads and validates a DKIM public key record at `name` (`<selector>._domainkey.<domain>`). */
  export function getPublicKey(
    type: 'DKIM',
    name: string,
    minBitLength: number,
    resolver: (name: string, type: string) => Promise<unknown>,
  ): Promise<{ publicKey: Buffer; rr: string; modulusLength?: number }>;
}

declare module 'mailauth/lib/spf/macro.js' {
  /** Expands SPF macros (RFC 7208 §7); throws on a malformed one. */
  export default function macro(
    input: string,
    values: { sender: string; ip: string; helo: string; mta?: string },
  ): string;
}
