/**
 * Reading a contact's address verdict (CONTRACT §24) through the API, for the verification tests:
 * as it is now, or once the background check has written one.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { api } from './app.js';
import { waitFor } from './wait.js';

/** `verification` of a contact as the API shows it. */
export interface Verification {
  status: string;
  reasons: string[];
  suggestion: string | null;
  checked_at: string | null;
}

/**
 * `verificationOf(id)`: the contact's verdict now; `checked(id)`: it once it is no longer `pending`.
 * Getters, because files boot their app and make their tenant in `beforeAll`.
 */
export function verdictReader(
  app: () => NestExpressApplication,
  token: () => string,
): { verificationOf(id: number): Promise<Verification>; checked(id: number): Promise<Verification> } {
  const verificationOf = async (id: number): Promise<Verification> =>
    (await api(app(), token()).get(`/contacts/${id}`)).body.data.verification as Verification;
  const checked = (id: number): Promise<Verification> =>
    waitFor(async () => {
      const v = await verificationOf(id);
      return v.status !== 'pending' && v;
    }, `contact ${id} checked`);
  return { verificationOf, checked };
}
