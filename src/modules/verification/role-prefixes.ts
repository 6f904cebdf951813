/**
 * Local parts that name a function rather than a person (`info@`, `sales@`, `noreply@`, ...): mail to
 * them reaches a shared box or a list, replies rarely come from the person a sequence was written for,
 * and complaints are likelier. The list is the maintained `role-based-email-addresses` package's
 * (about a thousand entries, pinned by the lock file), less the few entries below that name a person
 * as often as a function. Entries are compared after lower-casing and removing a `+tag`
 * (address-checks.ts).
 */
import rolePrefixes from 'role-based-email-addresses';

/**
 * Entries of the package's list that are not counted as roles. `role` makes a verdict `risky`, which a
 * campaign with `skip_risky` does not send to: a role missed costs little, a person taken for a role
 * costs a prospect. So these stay out:
 * - people's names: `per` (a Scandinavian given name), `alexa` (a given name), `gardner` (a surname);
 * - two-letter entries, read as a person's initials (`pm@`, `md@`, `la@`, ...) as often as a function,
 *   except `hr`, `it`, `pr` and `qa` (functions every company has) and `hi` (a greeting, as `hello`);
 * - titles held by one person, who is the one a sequence to `ceo@` is written for: `ceo`, `president`,
 *   `presidente`.
 */
const PERSON_LIKE: ReadonlySet<string> = new Set([
  'per',
  'alexa',
  'gardner',
  'ceo',
  'president',
  'presidente',
]);
const TWO_LETTER_ROLES: ReadonlySet<string> = new Set(['hi', 'hr', 'it', 'pr', 'qa']);

const isRole = (prefix: string): boolean =>
  !PERSON_LIKE.has(prefix) && (prefix.length !== 2 || TWO_LETTER_ROLES.has(prefix));

export const ROLE_LOCAL_PARTS: ReadonlySet<string> = new Set(
  rolePrefixes.map((p) => p.toLowerCase()).filter(isRole),
);
