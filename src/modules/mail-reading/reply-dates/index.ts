export { readFollowUpDate } from './follow-up.js';
export { readReferral } from './referral.js';
export { readReturnDate } from './return-date.js';
export type { ReadDay, ReadReferral, ReadReferralOptions } from './types.js';
