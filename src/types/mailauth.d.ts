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
