/** The reply's own words: no quoted history, no signature, at most the first 4,000 characters. */

const QUOTE_START =
  /^\s*(?:-{2,}\s*(?:original message|ursprüngliche nachricht|originalnachricht|message d'origine|mensaje original|forwarded message|weitergeleitete nachricht|message transféré)|>?\s*(?:on|am|le|el)\s.{4,200}\b(?:wrote|schrieb|a écrit|escribió)\b.{0,200}:?|(?:from|von|de)\s*:\s*.+|_{10,})\s*$/i;
const SIGNATURE_START =
  /^\s*(?:--\s*|(?:mit\s+)?(?:freundlichen|besten|herzlichen|viele|beste|liebe)\s+gr(?:ü|ue)(?:ß|ss)en?.*|(?:best|kind|warm)(?:\s+regards|\s+wishes)?[,.!]?|regards[,.!]?|cheers[,.!]?|sincerely[,.!]?|(?:bien\s+)?cordialement[,.!]?|bien à vous[,.!]?|(?:un\s+)?(?:cordial\s+)?saludos?(?:\s+cordiales)?[,.!]?|atentamente[,.!]?|sent from my .*|von meinem .* gesendet|envoyé de mon .*|enviado desde mi .*)\s*$/i;

/** How much of a reply is read: what a person writes about dates and colleagues comes first (and the scan stays cheap). */
const MAX_CHARS = 4000;

export function ownWords(text: string): string {
  const lines = text.slice(0, 100_000).replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (QUOTE_START.test(line)) break;
    if (out.length > 0 && SIGNATURE_START.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    out.push(line);
  }
  return out.join('\n').slice(0, MAX_CHARS);
}
