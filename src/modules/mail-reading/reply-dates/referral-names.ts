/** The name around a referred address: "Jane Doe <jane@acme.com>", "jane@acme.com (Jane Doe)". */

/** Words that stand before a name but are not part of it (titles, roles, sentence words). */
const NOT_A_NAME = new Set(
  [
    'please',
    'contact',
    'try',
    'ask',
    'email',
    'mail',
    'the',
    'our',
    'my',
    'mr',
    'mrs',
    'ms',
    'dr',
    'prof',
    'herr',
    'frau',
    'herrn',
    'kollege',
    'kollegin',
    'kollegen',
    'kolleginnen',
    'meinen',
    'meinem',
    'meiner',
    'unseren',
    'unserem',
    'unsere',
    'colleague',
    'colleagues',
    'collègues',
    'colega',
    'compañeros',
    'compañeras',
    'bitte',
    'kontaktieren',
    'sie',
    'mein',
    'meine',
    'ansprechpartner',
    'ansprechpartnerin',
    'zuständig',
    'ist',
    'head',
    'sales',
    'lead',
    'manager',
    'director',
    'ceo',
    'cto',
    'cfo',
    'm',
    'mme',
    'mlle',
    'monsieur',
    'madame',
    'contactez',
    'plutôt',
    'collègue',
    'merci',
    "c'est",
    'sr',
    'sra',
    'don',
    'doña',
    'señor',
    'señora',
    'escriba',
    'a',
    'compañero',
    'compañera',
    'responsable',
    'el',
    'la',
    'es',
    'hable',
    'con',
    'de',
    'to',
    'at',
    'is',
    'team',
    'you',
    'i',
    'wrong',
    'not',
    'me',
    'vertretung',
    'assistant',
  ].map((w) => w.toLowerCase()),
);
const NAME_WORD = /^[A-ZÀ-ÝÄÖÜ][\p{L}'’-]*\.?$/u;
const PARTICLE = /^(von|van|de|del|della|la|le|du|da|di|der|den|y|zu)$/;

function nameFromWords(words: string[]): { firstName: string | null; lastName: string | null } {
  const clean = words.map((w) => w.replace(/[.,:;]+$/, ''));
  // The last run of capitalised words (with name particles inside), without titles and sentence words.
  const run: string[] = [];
  for (let i = clean.length - 1; i >= 0; i -= 1) {
    const w = clean[i];
    if (NAME_WORD.test(w) && !NOT_A_NAME.has(w.toLowerCase())) run.unshift(w);
    else if (run.length > 0 && PARTICLE.test(w) && i > 0 && NAME_WORD.test(clean[i - 1])) run.unshift(w);
    else break;
    if (run.length >= 4) break;
  }
  while (run.length > 0 && PARTICLE.test(run[0])) run.shift();
  if (run.length === 0) return { firstName: null, lastName: null };
  return { firstName: run[0], lastName: run.length > 1 ? run.slice(1).join(' ') : null };
}

export function nameNear(
  text: string,
  index: number,
  end: number,
): { firstName: string | null; lastName: string | null } {
  // "jane@acme.com (Jane Doe)"
  // "jgarcia@acme.es (Javier García, responsable de compras)": the name comes before a comma.
  const after = /^\s*[(<[]\s*([^()<>[\]@\n]{2,60}?)\s*[)>\]]/.exec(text.slice(end, end + 70));
  if (after) {
    const got = nameFromWords(
      after[1]
        .split(/[,;–—]|\s-\s/)[0]
        .trim()
        .split(/\s+/),
    );
    if (got.firstName) return got;
  }
  // "Jane Doe <jane@acme.com>", "Max Braun (max@...)", "Laura King: laura@...", "Peter Brown at peter@..."
  let before = text.slice(Math.max(0, index - 80), index);
  before = before.replace(
    /(?:\s*(?:[(<[:,–—-]|<mailto:)\s*|\s+(?:at|unter|à l['’]adresse|en|a través de|via|per|:)\s*)+$/i,
    '',
  );
  const sentence = before.split(/[.!?;\n]\s+|\n/).pop() ?? before;
  const words = sentence.trim().split(/\s+/).filter(Boolean);
  const adjacent = nameFromWords(words);
  const local = text.slice(index, end).split('@')[0];
  // "Sabine Wolf aus der IT (s.wolf@…)": a name further back that the address carries beats the
  // words just before it.
  if (adjacent.firstName && carries(local, adjacent)) return adjacent;
  const confirmed = confirmedName(sentence, local);
  return confirmed.firstName ? confirmed : adjacent;
}

const fold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

/** Whether the address's local part carries one of the name's parts (two letters or more). */
function carries(local: string, name: { firstName: string | null; lastName: string | null }): boolean {
  const localFolded = fold(local);
  return [name.firstName ?? '', ...(name.lastName ?? '').split(/\s+/)]
    .map(fold)
    .some((p) => p.length >= 2 && localFolded.includes(p));
}

/**
 * A name further back in the sentence ("C'est Mme Sophie Bernard qui gère ce sujet : sophie.bernard@…"),
 * taken only when the address's local part carries its first or last name.
 */
function confirmedName(
  sentence: string,
  local: string,
): { firstName: string | null; lastName: string | null } {
  const words = sentence.trim().split(/\s+/).filter(Boolean);
  for (let end = words.length; end > 0; end -= 1) {
    const got = nameFromWords(words.slice(0, end));
    if (got.firstName && got.lastName && carries(local, got)) return got;
  }
  return { firstName: null, lastName: null };
}
