/** The person a "wrong person" reply points to. */
import { parse as parseDomain } from 'tldts';
import { replyText as ownWords } from '../reply-text.js';
import { nameNear } from './referral-names.js';
import type { ReadReferral, ReadReferralOptions } from './types.js';

const ADDRESS = /(?<![\w.%+'-])[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const SYSTEM_LOCAL = /^(no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?)$/i;
const REFERRAL_CUE =
  /\b(contact|reach(?:ing)? out|speak (?:to|with)|talk (?:to|with)|ask|email|e-mail|write to|in charge|responsible|handles?|the right (?:person|contact)|colleague|instead|kontaktieren|wenden|zuständig|ansprechpartner(?:in)?|kolleg(?:e|in)|schreiben sie|kümmert|contactez|adresser|collègue|responsable|s'occupe|gère|écrire|voyez|contacte|escriba|escribir|compañer[oa]|encargad[oa]|hable)/i;

interface Candidate {
  email: string;
  index: number;
  end: number;
  sameDomain: boolean;
  cued: boolean;
}

/**
 * The person a "wrong person" reply points to: an address at the replier's own registrable domain (not
 * the replier's own), the one nearest a referral cue ("please contact", "mein Kollege", "contactez",
 * "escriba a") or else the first; never one from the quoted history or the signature. First and last
 * name come from the words around the address ("Jane Doe <jane@acme.com>", "jane@acme.com (Jane Doe)").
 */
export function readReferral(
  text: string,
  replierEmail: string,
  options: ReadReferralOptions = {},
): ReadReferral | null {
  const replier = replierEmail.trim().toLowerCase();
  const own = parseDomain(replier.split('@').pop() ?? '').domain;
  if (!own) return null;
  const excluded = new Set([replier, ...(options.exclude ?? []).map((e) => e.toLowerCase())]);
  const words = ownWords(text);
  // One candidate per address; an address written again after a cue ("the team: a@, b@, c@. Please
  // contact b@") takes that occurrence (its cue, and the name around it).
  const seen = new Map<string, Candidate>();
  const candidates: Candidate[] = [];
  for (const match of words.matchAll(ADDRESS)) {
    const email = match[0].replace(/\.+$/, '').toLowerCase();
    const index = match.index ?? 0;
    if (excluded.has(email)) continue;
    const [local, domain] = email.split('@');
    if (SYSTEM_LOCAL.test(local)) continue;
    const known = seen.get(email);
    const sameDomain = known?.sameDomain ?? parseDomain(domain).domain === own;
    if (!sameDomain && !options.anyDomain) continue;
    const clause =
      words
        .slice(Math.max(0, index - 80), index)
        .split(/[.!?;\n]\s/)
        .pop() ?? '';
    const occurrence = {
      email,
      index,
      end: index + match[0].length,
      sameDomain,
      cued: REFERRAL_CUE.test(clause),
    };
    if (!known) {
      seen.set(email, occurrence);
      candidates.push(occurrence);
    } else if (occurrence.cued && !known.cued) {
      Object.assign(known, occurrence);
    }
  }
  const pick =
    candidates.find((c) => c.sameDomain && c.cued) ??
    candidates.find((c) => c.sameDomain) ??
    candidates.find((c) => c.cued) ??
    candidates[0];
  if (!pick) return null;
  const name = nameNear(words, pick.index, pick.end);
  return {
    email: pick.email,
    firstName: name.firstName,
    lastName: name.lastName,
    sameDomain: pick.sameDomain,
  };
}
