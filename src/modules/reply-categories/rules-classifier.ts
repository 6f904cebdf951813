/**
 * The built-in classifier (CONTRACT §20, "Built-in rules"): phrase rules for English, German, French
 * and Spanish, no outside call. It reads the reply as {@link replyText} leaves it (no quoted history, no
 * signature).
 *
 * Order of decision, most consequential first:
 * 1. `unsubscribe_request`: a written opt-out, not negated ("no need to remove me") and not a
 *    conditional or a quoted footer ("if you want to unsubscribe…"). It wins over everything else,
 *    because the law treats it like the unsubscribe link; its phrases are specific enough that the other
 *    senses of "remove" or "stop" ("remove the manual work", "stop by our booth") do not match.
 * 2. `wrong_person`: the writer is not the one to ask, or has left.
 * 3. `not_now`, `not_interested`, `interested`: scored; the strongest wins, ties in that order (a
 *    "not interested right now, try in Q3" is a `not_now`).
 * 4. `other`.
 */
import type { ReplyCategory } from './reply-category.js';

/** Lower case, no diacritics (é → e, ü → u, ß → ss), straight apostrophes, addresses and links as tokens. */
export function foldText(text: string): string {
  return text
    .replace(/https?:\/\/\S+/gi, ' urladdr ')
    .replace(/[^\s<>()[\]@,;:"']+@[^\s<>()[\]@,;:"']+\.[a-z]{2,}/gi, ' emailaddr ')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[’‘´`]/g, "'")
    .replace(/[“”«»„]/g, '"')
    .replace(/[ \t]+/g, ' ');
}

/** Where the clause holding `index` begins: sentence ends, commas and "but"-like words bound a negation. */
const CLAUSE_BOUNDARY =
  /[.!?;:\n,(]|\s[-–—]\s|\b(but|however|though|although|aber|jedoch|doch|sondern|mais|cependant|pero|sino|aunque)\b|\b(and|und|et|y) (i|we|i'd|we'd|i'm|we're|ich|wir|je|j'|nous|yo|nosotros)\b/g;

function clauseStart(text: string, index: number): number {
  let start = 0;
  for (const m of text.slice(0, index).matchAll(CLAUSE_BOUNDARY)) start = m.index + m[0].length;
  return start;
}

/** A negation standing before a phrase in the same clause (EN/DE/FR/ES). */
const NEGATION_BEFORE =
  /\b(was about to|were about to|almost|nearly|was going to|thought about|thinking about|considered|considering|was tempted to|not|no|never|dont|don't|doesn't|didn't|won't|wouldn't|isn't|aren't|can't|cannot|no need to|no reason to|without|nicht|kein|keine|keinen|nie|niemals|ne|n'|pas|jamais|sans|nunca|tampoco|sin)\b[^.!?;,\n]*$/;
/** German and French put the negation after the verb: "interessiert uns nicht", "intéresse pas". */
const NEGATION_AFTER = /^[^.!?;,\n]{0,25}?\b(nicht|kein|keine|pas|plus du tout)\b/;

interface Rule {
  re: RegExp;
  weight: number;
  /** When true, a negation before the phrase (same clause) or a German/French one right after cancels it. */
  negatable: boolean;
}

const rule = (re: RegExp, weight = 2, negatable = true): Rule => ({ re, weight, negatable });
/** A phrase that carries its own negation ("no me interesa", "don't email me"): never cancelled. */
const fixed = (re: RegExp, weight = 2): Rule => rule(re, weight, false);

function global(re: RegExp): RegExp {
  return new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
}

/** The sum of the weights of the rules that match somewhere, un-negated. */
function score(text: string, rules: readonly Rule[]): number {
  let total = 0;
  for (const r of rules) {
    for (const m of text.matchAll(global(r.re))) {
      if (r.negatable && isNegated(text, m.index, m[0].length)) continue;
      total += r.weight;
      break;
    }
  }
  return total;
}

function isNegated(text: string, index: number, length: number): boolean {
  const before = text.slice(clauseStart(text, index), index);
  if (NEGATION_BEFORE.test(before)) return true;
  return NEGATION_AFTER.test(text.slice(index + length, index + length + 30));
}

// ---------------------------------------------------------------------------------------------------
// 1. Written opt-outs. Patterns are written against folded text (no accents, lower case).
// ---------------------------------------------------------------------------------------------------

const ME = '(me|us|my (e-?mail|email address|address|name|contact|details|data|info)|this (e-?mail|address))';
const MAIL =
  '(e-?mails?|mails?|messages?|newsletters?|emails? like this|marketing|sales (emails?|pitches)|spam)';

const OPT_OUT: readonly Rule[] = [
  // EN
  rule(/\bunsubscrib(e|ed|ing)\b/),
  rule(/\bopt(ed|ing)? (me |us )?out\b/),
  rule(/\bopt-out\b/),
  rule(new RegExp(`\\b(remove|delete|erase|drop|strike|scratch|take) ${ME} (from|off)\\b`)),
  rule(
    new RegExp(`\\b(remove|delete|erase) ${ME}\\b(?! from (the|this) (meeting|call|invite|thread|cc|loop))`),
  ),
  rule(/\btake (me|us|my (e-?mail|address|name)) off\b/),
  rule(
    /\b(off|from) (your|the|this) (mailing |contact |e-?mail |distribution |marketing |sales )?(list|database|lists|crm|sequence|campaign)s?\b.{0,40}\b(please|now|asap|immediately)?/,
    1,
  ),
  rule(
    /\bstop (e-?mailing|mailing|emailing|sending( me| us)?|contacting|writing( to)?|messaging|spamming|bothering|pestering|harassing|reaching out to|following up with) ?(me|us|this|these|your|emails?|mails?|messages?)?\b/,
  ),
  fixed(
    /\b(do not|don't|dont|never|please don't|pls don't) (ever )?(contact|e-?mail|email|mail|write( to)?|message|call|bother|spam|reach out to|send (me|us)( any)?( more)?) ?(me|us|this address)?\b.{0,25}\b(again|anymore|any more|ever|further|in the future)\b/,
  ),
  fixed(/\b(do not|don't|dont) (contact|e-?mail|email|message|spam|bother) (me|us)\b/),
  fixed(new RegExp(`\\bno (more|further) ${MAIL}\\b`)),
  fixed(
    new RegExp(
      `\\b(don't|do not|dont) (want|wish) to (receive|get|hear) (any )?(more|further|these|your|from you|this)\\b`,
    ),
  ),
  fixed(/\b(no longer|don't|do not) (want|wish) to (receive|be contacted|be emailed|hear from)\b/),
  fixed(
    /\bi (never )?(did not|didn't|never) (sign(ed)? up|subscribe|opt(ed)? in|ask(ed)?) (for|to) (this|these|your)\b.{0,60}\b(remove|stop|delete|unsubscribe)/,
  ),
  fixed(/\bleave me alone\b/),
  rule(
    /\b(be|being|get|getting|been) (removed|deleted|taken off|unsubscribed|dropped|erased|struck off|opted out)\b/,
  ),
  rule(
    /\b(stop|quit|cease|end|halt) (getting|receiving|sending|emailing|e-mailing|mailing|contacting|messaging|writing)\b/,
  ),
  rule(
    /\b(remove|delete|erase|drop|take|strike)\b.{0,30}\b(from|off) (your|the|this|all|any) ?(\w+ )?(list|lists|database|distribution|system|crm|records|contacts|sequence|campaign|mailing|communications)\b/,
  ),
  fixed(/\bcease and desist\b/),
  fixed(/\b(no further contact|not (wish |want )?to be contacted( again)?)\b/),
  rule(/\b(this is|that's|thats|pure|reported (this |you )?(as|for)) spam\b/),
  rule(/\b(delete|erase|remove|purge) (all )?(of )?my (personal )?(data|information|details|record)/),
  rule(/\bright to (object|erasure|be forgotten)\b/),
  rule(/\bgdpr\b.{0,40}\b(delete|erase|remove|request|object)/),
  // DE
  rule(/\b(ab|aus)melden\b|\bmelden sie mich\b.{0,30}\bab\b|\bmeld(e|et) mich ab\b|\babmeldung\b/),
  rule(
    /\b(nehmen|streichen|entfernen|loschen|tragen) sie (mich|uns|meine (adresse|e-?mail(-?adresse)?|daten|kontaktdaten)|meinen (namen|kontakt))\b.{0,40}\b(aus|von|raus)\b/,
  ),
  rule(
    /\bloschung (meiner|unserer|der) (daten|adresse|e-?mail(-?adresse)?|kontaktdaten|personenbezogenen daten)\b/,
  ),
  rule(/\babbestell(en|ung)\b|\bbestellen sie\b.{0,20}\bab\b/),
  rule(
    /\b(aus|von) (ihrem|ihrer|dem|der|eurem|eurer|diesem|ihren) (e-?mail-?)?(verteiler|verteilerliste|liste|mailingliste|newsletter|datenbank|kontaktliste)\b/,
  ),
  rule(
    /\b(austragen|streichen|entfernen|loschen)\b.{0,40}\b(verteiler|liste|datenbank|adresse|e-?mail|kontakt|daten)\b/,
  ),
  rule(
    /\b(verteiler|liste|datenbank|adresse|e-?mail(-?adresse)?|kontakt|daten)\b.{0,40}\b(austragen|streichen|entfernen|loschen)\b/,
  ),
  rule(/\b(tragen|nehmen|streichen) sie mich\b.{0,40}\b(aus|raus|heraus|von)\b/),
  fixed(
    /\bkeine (weiteren |werbe-?)?(e-?mails|mails|nachrichten|zusendungen|werbung|anfragen|newsletter)\b.{0,30}\bmehr\b/,
  ),
  fixed(/\bkeine (weiteren )?(e-?mails|mails|nachrichten|zusendungen|werbung|kontaktaufnahmen?)\b/),
  fixed(/\b(schreiben|kontaktieren|mailen|anschreiben|belastigen) sie mich (bitte )?(nicht|nie) mehr\b/),
  fixed(/\b(schreiben|kontaktieren|mailen|belastigen) sie mich bitte nicht\b/),
  fixed(/\bnicht mehr (anschreiben|kontaktieren|anmailen|schreiben|belastigen)\b/),
  fixed(/\bmochte (keine|nichts mehr|nicht mehr)\b.{0,40}\b(erhalten|bekommen|kontaktiert|angeschrieben)\b/),
  fixed(/\bhoren sie (bitte )?auf\b.{0,30}\b(schreiben|mailen|kontaktieren|senden|anzuschreiben)\b/),
  fixed(/\bunterlassen sie\b/),
  rule(/\bwiderspreche\b|\bwiderspruch\b.{0,40}\b(daten|werbung|nutzung|verarbeitung)\b/),
  // FR
  rule(/\b(de|des)?s?(inscri(re|vez|ption|s|t)|abonn(er|ez|ement))\b/),
  rule(/\b(desinscri\w*|desabonn\w*)\b/),
  rule(
    /\b(retirez|retirer|supprimez|supprimer|enlevez|enlever|effacez|rayez)[- ](moi|nous|mon adresse|mon e-?mail|mes coordonnees|mes donnees|mon contact)\b/,
  ),
  rule(
    /\b(retirer|supprimer|enlever|effacer|rayer) (mon adresse|mon e-?mail|mes coordonnees|mes donnees|mon contact|mon nom)\b/,
  ),
  rule(/\bme (retirer|supprimer|desinscrire|desabonner|rayer|enlever)\b/),
  rule(/\b(de|des) (votre|vos|la|cette) (liste|base|fichier|mailing|liste de diffusion)s?\b/, 1),
  fixed(
    /\bne (plus|jamais) (me |nous |m')?(contacter|ecrire|envoyer|solliciter|relancer|recontacter|ecrire)\b/,
  ),
  fixed(/\bne (me|nous) (contactez|ecrivez|envoyez|sollicitez|relancez|recontactez) (plus|jamais|pas)\b/),
  fixed(/\bne (souhaite|veux|desire) plus (recevoir|etre (contacte|sollicite|relance))\b/),
  fixed(
    /\b(arretez|arreter|cessez|cesser) (de|d') ?(m'|nous )?(ecrire|envoyer|contacter|spammer|solliciter|relancer|m'ecrire|m'envoyer|me contacter|me relancer|me solliciter)/,
  ),
  fixed(/\bplus (de|d') ?(mails?|e-?mails?|messages?|courriels?|sollicitations?)\b/),
  rule(
    /\betre (retire|retiree|retires|supprime|supprimee|desinscrit|desinscrite|raye|rayee|enleve|enlevee)s? (de|des)\b/,
  ),
  fixed(
    /\b(cesser|cessez|arreter|arretez|stopper|stoppez) (tout |tous |toutes |les |vos |ces )?(envois?|e-?mails?|mails?|messages?|sollicitations?|relances?|communications?|courriels?)\b/,
  ),
  fixed(/\b(ne |n')?(m'|me |nous )?(ecrivez|contactez|envoyez|sollicitez|relancez|recontactez) plus\b/),
  // ES
  rule(/\b(dar|darme|darnos|darse|de|den|denme|deme|dadme|me doy|doy) (de )?baja\b/),
  rule(/\bbaja\b.{0,30}\b(lista|correo|suscripcion|envios|base de datos|newsletter)\b/),
  rule(
    /\b(solicito|pido|quiero|deseo|solicitar|pedir|tramitar|gestionar|procesar|procesen|tramiten|gestionen) (la |mi |nuestra )?baja\b/,
  ),
  rule(/\b(desuscrib\w*|desinscrib\w*|anular (la )?suscripcion|cancelar (la |mi )?suscripcion)\b/),
  rule(
    /\b(quitenme|quitadme|quiteme|sacadme|saquenme|saqueme|eliminenme|eliminadme|borrenme|borradme|excluyanme)\b/,
  ),
  rule(
    /\b(quitar|sacar|eliminar|borrar|excluir)(me|nos)? (de|del) (su|vuestra|la|esta|tu|sus) ?(lista|base|listado|base de datos|envios|correos)\b/,
  ),
  rule(
    /\b(eliminen|borren|eliminad|borrad|quiten|supriman|eliminar|borrar) (mi|mis|nuestro|nuestros) (correo|direccion|email|e-mail|datos|contacto)/,
  ),
  fixed(
    /\bno (me|nos) (vuelvan a |vuelvas a |volvais a )?(escriban|escribas|escribais|envien|envies|mandes|manden|contacten|contactes|molesten|molestes|escribir|enviar|contactar)\b/,
  ),
  fixed(/\bno (quiero|queremos|deseo|deseamos) (recibir|que me (escriban|contacten|envien))\b/),
  fixed(
    /\b(dejen|deja|dejad|deje) de (escribirme|enviarme|contactarme|mandarme|escribirnos|enviarnos|contactarnos|molestarme|molestarnos|escribir|enviar|mandar)\b/,
  ),
  fixed(/\bno (mas|quiero mas) (correos|emails|e-mails|mensajes|spam)\b/),
  rule(
    /\b(que )?me (borren|eliminen|quiten|saquen|excluyan|borreis|elimineis|quiteis|saqueis|den de baja|deis de baja)\b/,
  ),
  fixed(
    /\bno (deseo|deseamos|quiero|queremos) (recibir|seguir recibiendo) (mas|ningun|ninguna|sus|vuestros|estos|estas)\b/,
  ),
  // Concepts rather than phrases: a stop word bound to a contact verb and its object, a removal verb
  // bound to the writer's own address or data, a data-protection request, in each language.
  fixed(
    /\b(stop|quit|cease|don't|do not|dont|didn't|did not|never|no more|no further|not)\b(\s+\S+){0,2}\s+(e-?mail(ing)?|mail(ing)?|writ(e|ing)( to)?|contact(ing)?|send(ing)?|messag(e|ing)|reach(ing)? out to|spam(ming)?|pitch(ing)?|bother(ing)?)\s+(me|us|this address|anything|any more|anymore|further|these|again|emails?|messages?|mails?)\b/,
  ),
  fixed(
    /\bstop (with |sending )?(the |your |these |those |all )?(follow[- ]?ups?|e-?mails?|mails?|messages?|spam|pitches|sequences?|outreach|cold e-?mails?)\b/,
  ),
  fixed(
    /\b(asked|told) you (to stop|not to|twice|already|before|several times|multiple times)\b|\bharass(ment|ing)\b/,
  ),
  fixed(/(^|[.!?\n]\s*)(please |bitte |svp |por favor )?(stop|stopp|basta|halt)\s*[.!]/),
  rule(
    /\b(remove|delete|erase|purge|drop|scrub)\b.{0,20}\b(my|our) (e-?mail|email address|address|name|details|contact( details| info)?|data|info(rmation)?|personal (data|information))\b/,
  ),
  rule(/\b(gdpr|rgpd|dsgvo|lopd|lopdgdd|ccpa)\b/, 1),
  rule(/\b(object|objection)\b.{0,40}\b(processing|marketing|data)\b/),
  fixed(
    /\b(nicht (mehr|weiter)|nie wieder|keine (weiteren|e-?mails|mails|nachrichten) mehr)\b.{0,20}\b(anschreiben|anzuschreiben|schreiben|zu schreiben|kontaktieren|zu kontaktieren|senden|zu senden|schicken|zu schicken|mailen|zu mailen|belastigen|zu belastigen)\b/,
  ),
  fixed(
    /\bkeine (weiteren )?(kontaktversuche|kontaktaufnahmen?|anfragen|zusendungen|werbemails|werbe-?e-?mails)\b/,
  ),
  rule(
    /\b(loschen|entfernen|streichen|austragen)\b.{0,30}\b(mich|meine|meinen|uns|unsere)\b|\b(mich|meine|meinen|uns|unsere)\b.{0,30}\b(loschen|entfernen|streichen|austragen)\b/,
  ),
  rule(
    /\b(verteiler|mailingliste|e-?mail-?liste|datenbank)\b.{0,20}\b(loschen|entfernen|streichen|austragen|nehmen)\b/,
  ),
  fixed(
    /\bne (veux|souhaite|desire|voulons|souhaitons) plus (etre )?(contacte|sollicite|relance|recevoir|destinataire)e?s?\b/,
  ),
  fixed(/\bstop (aux|a vos|a ces|a tes) (relances|mails|e-?mails|messages|sollicitations|envois)\b/),
  rule(
    /\b(supprimer|supprimez|effacer|effacez|retirer|retirez|enlever|enlevez)\b.{0,25}\b(mes|mon|ma|moi)\b/,
  ),
  rule(
    /\b(elimine|eliminen|eliminad|elimina|borre|borren|borrad|borra|quite|quiten|quitad|quita|saque|saquen|sacad|saca|suprima|supriman|suprimid)\b.{0,15}\b(mi|mis|nuestro|nuestros|nuestra)\b/,
  ),
  rule(
    /\b(eliminar|borrar|quitar|sacar|suprimir)(me|nos)?\b.{0,15}\b(mi|mis) (correo|direccion|email|e-mail|datos|contacto)\b/,
  ),
  fixed(
    /\b(cease|stop|end|halt) (all |any )?(further )?(communications?|correspondence|contact|outreach|e-?mails?|messages?)\b/,
  ),
  fixed(/\bhoren sie (bitte )?(damit )?auf\b|\bhort (bitte )?auf\b/),
  fixed(/\bno (vuelvan|vuelvas|volvais|vuelva) a (escribir|contactar|enviar|mandar|llamar)(me|nos)?\b/),
  rule(
    /\b(remove|delete|drop|take) (me |us |this (e-?mail|address) )?(from|off) (the |your |this |all |any |my )?(\w+ )?(list|lists|database|distribution|mailing|sequence|campaign)\b/,
  ),
  fixed(
    /\b(want|get|be|go|keep) (me |us )?off (of )?(your|the|this|all|any) (\w+ )?(lists?|database|distribution|mailing)\b/,
  ),
  fixed(/\brefrain from (contacting|e-?mailing|emailing|writing|sending|messaging|reaching)\b/),
  rule(/\b(excluyan|excluya|excluid|excluir|excluirme)\b.{0,20}\b(mi|mis|me|de)\b/),
  fixed(
    /\b(schreiben|mailen|senden|schicken|antworten) sie (mir|uns)\b.{0,20}\b(nicht mehr|nie wieder|keine)\b/,
  ),
  fixed(
    /\bne (veux|souhaite|voulons|souhaitons) plus (de |d')?(vos |ces |tes )?(mails?|e-?mails?|messages?|courriels?|sollicitations?|relances?|newsletters?)\b/,
  ),
  fixed(
    /\b(discontinue|cease|end|halt|stop)\b.{0,20}\b(sending|emailing|e-mailing|contacting|messaging|mailing)\b/,
  ),
  fixed(
    /\b(refuse|refuser|je refuse|rechazo|verweigere)\b.{0,30}\b(recevoir|recibir|erhalten|receive|e-?mails?|mails?|correos|courriels)\b/,
  ),
];

/** A sentence about unsubscribing that is not a request: our own footer, a conditional, a question about it. */
const NOT_A_REQUEST =
  /\b(if you (want|wish|would like|no longer wish|prefer)|if you'd|to unsubscribe,? (click|reply|use|follow)|click here|unsubscribe link|si vous (souhaitez|ne souhaitez)|pour vous desinscrire|wenn sie (keine|sich abmelden)|um sich abzumelden|si (no )?(desea|quiere)s? (darse|dejar|recibir)|para darse de baja,? (haga|pulse))\b/;

/** A whole reply that is one opt-out word ("STOP", "Remove", "Baja", "Abmelden"). */
const ONE_WORD_OPT_OUT =
  /^\W*(please |bitte |svp |por favor )?(stop|stopp|stop it|please stop|unsub|unsubscribe me|remove|remove me|unsubscribe|delete|delete me|opt out|baja|abmelden|austragen|loschen|desinscription|desabonnement|desinscrire|desinscrivez-moi|stop svp|stop please)(\W+(stop|stopp))*([,.!]? ?(please|pls|bitte|svp|por favor|merci|danke|gracias|thanks|thank you))?\W*$/;

/** Words of the opt-out family, read only when no category was recognised (see classifyByRules). */
const OPT_OUT_WORDS: readonly Rule[] = [
  rule(
    /\b(stop|stopp|unsub\w*|opt\W?out|remove|spam|refrain|cease|discontinue|refuse|refuser|rechaz\w*|verweiger\w*|widersprech\w*|widerspreche|abmeld\w*|austrag\w*|losch\w*|entfern\w*|verteiler|desinscri\w*|desabonn\w*|retir\w*|supprim\w*|arret\w*|baja|elimin\w*|borr\w*|exclu\w*|quit(a|e|en|ad|ar)\w*|dej(a|en|ad) de)\b/,
    1,
  ),
];

function isOptOut(text: string): boolean {
  if (ONE_WORD_OPT_OUT.test(text) || ONE_WORD_OPT_OUT.test(text.split('\n')[0] ?? '')) return true;
  // "Please stop." as a sentence of its own.
  if (
    /(^|[.!?\n]\s*)(please |pls |just |bitte |svp |por favor )?stop( it| now| please| this| that)?\s*[.!]+/.test(
      text,
    )
  )
    return true;
  for (const sentence of text.split(/(?<=[.!?\n])\s*/)) {
    if (NOT_A_REQUEST.test(sentence)) continue;
    if (score(sentence, OPT_OUT) >= 2) return true;
  }
  // A weak signal ("off your list") only counts together with a request word in the same reply.
  return (
    score(text, OPT_OUT) >= 1 &&
    /\b(please|pls|kindly|asap|immediately|bitte|sofort|svp|merci de|por favor|inmediatamente)\b/.test(
      text,
    ) &&
    /\b(list|liste|lista|database|datenbank|base)\b/.test(text) &&
    !NOT_A_REQUEST.test(text)
  );
}

// ---------------------------------------------------------------------------------------------------
// 2. Wrong person.
// ---------------------------------------------------------------------------------------------------

const WRONG_PERSON: readonly Rule[] = [
  // EN
  fixed(
    /\b(i'm|i am|im) not (the|your) (right|correct|best|appropriate|relevant|ideal) (person|contact|one|point of contact|guy|person to (talk|speak) to)\b/,
    3,
  ),
  fixed(/\bnot the (right|correct|best|appropriate|relevant) (person|contact|one|department|team|guy)\b/, 3),
  fixed(/\bwrong (person|contact|guy|department|team|address|email|inbox)\b/, 3),
  fixed(
    /\b(no longer|don't|do not|doesn't|does not) (handle|manage|own|look after|deal with|cover|work on|run|oversee|make)\b/,
    3,
  ),
  fixed(/\b(should|needs to|need to|would need to|has to) go to\b|\bthat's now with\b|\bis now with\b/, 3),
  rule(/\bnot me\b/, 1),
  rule(
    /\b(you (want|need|should talk to|should speak to|'ll want)|best to (ask|contact|speak|talk)|try) (my|our) (colleague|boss|manager|team|head|director|cto|ceo|cfo|vp)\b/,
    3,
  ),
  fixed(/\b(has )?moved on from\b|\bhanded (his|her|their) (inbox|mailbox|email)\b/, 3),
  fixed(
    /\b(don't|do not|doesn't) make (the )?(purchasing|buying|budget)? ?decisions?\b|\bnot (the |a )?(decision[- ]?maker|decider)\b/,
    3,
  ),
  fixed(
    /\bnot (my|our) (area|department|remit|responsibility|field|decision|call|team|domain)\b|\b(outside|not within) (my|our) (remit|responsibility|area)\b/,
    3,
  ),
  fixed(/\b(i've|i have|i) (left|moved on from|departed)\b/, 3),
  fixed(
    /\b(no longer|not) (with|at|working (at|for|with)|work(ing)? (at|for|with)|employed (at|by)|part of)\b( the| your| this)? ?(company|team|organi[sz]ation|firm|\w+)?/,
    2,
  ),
  fixed(/\b(is|has) (no longer|left|not been) (with|at|part of|left)\b/, 3),
  fixed(/\b((has|have|had) )?left (the|our) (company|firm|organi[sz]ation|business|team)\b/, 3),
  fixed(/\b(retired|passed away)\b/, 2),
  fixed(/\b(this (mailbox|inbox|address) is (no longer|not) (monitored|in use|active))\b/, 3),
  rule(
    /\b(you should|you'd better|you might want to|better to|please|you could|you may want to|try) (reach out to|contact|talk to|speak (to|with)|email|e-mail|ask|write to|get in touch with)\b/,
    2,
  ),
  rule(
    /\b(the|a) (right|better|best|correct|appropriate) (person|contact|people|colleague)\b.{0,20}\b(is|would be|are|to (talk|speak) to)\b/,
    3,
  ),
  rule(
    /\b(handles|is responsible for|looks after|takes care of|owns|is in charge of|manages|is the (person|one) for)\b/,
    1,
  ),
  rule(/\b(forward(ed|ing)?|passed|passing) (this|your (email|message|note|mail)|it) (on )?to\b/, 1),
  rule(/\b(looping|cc'ing|ccing|copying) in\b|\bi've (cc'd|copied|looped in)\b/, 2),
  rule(/\bemailaddr\b/, 1),
  // DE
  fixed(
    /\bnicht (der|die) (richtige|passende|zustandige)n? (ansprechpartner(in)?|person|kontakt|stelle)\b/,
    3,
  ),
  fixed(/\b(bin|ist) (dafur )?nicht (mehr )?(zustandig|verantwortlich)\b/, 3),
  fixed(/\bnicht mehr (bei|im unternehmen|in der firma|fur)\b/, 3),
  fixed(/\b(habe|hat) (das unternehmen|die firma|uns|das team) (bereits )?verlassen\b/, 3),
  fixed(/\b(scheidet|ausgeschieden|nicht mehr im hause)\b/, 3),
  rule(/\b(dafur|hierfur|fur (dieses|das) thema)\b.{0,40}\b(zustandig|verantwortlich)\b/, 3),
  rule(/\b(wenden sie sich|melden sie sich)\b.{0,20}\b(an|bei)\b/, 2),
  rule(/\b(ansprechpartner(in)?|zustandig|verantwortlich)\b.{0,30}\b(ist|ware|sind|dafur)\b/, 2),
  rule(/\b(leite|leiten)\b.{0,40}\bweiter\b|\brichtige(n)? ansprechpartner(in)?\b/, 3),
  rule(/\b(weitergeleitet|leite (ihre|die|ihre) (e-?mail|nachricht|anfrage) weiter|leite das weiter)\b/, 2),
  // FR
  fixed(/\b(pas|plus) (la|le) (bonne|bon) (personne|interlocuteur|interlocutrice|contact|service)\b/, 3),
  fixed(/\bne (fais|fait|travaille|suis) plus (partie|chez|dans|au sein|en poste)\b/, 3),
  fixed(
    /\b(j'ai|il a|elle a) quitte\b|\ba quitte (l'entreprise|la societe|le groupe|la boite|notre|nos)\b/,
    3,
  ),
  fixed(/\bne (m'|nous )?occupe pas\b/, 3),
  fixed(/\bne (suis|est) pas (en charge|responsable|le bon|la bonne|concernee?)\b/, 3),
  rule(
    /\b(adressez-vous|contactez plutot|voyez plutot|veuillez contacter|merci de contacter|je vous invite a contacter|il faut contacter)\b/,
    2,
  ),
  rule(/\b(s'occupe|est en charge|est responsable|gere ce sujet|gere ces sujets)\b/, 2),
  rule(/\b(gere|geree|traite|traitee|pris en charge|suivi) par\b/, 2),
  fixed(/\bn'est plus (chez|dans|avec|a|au sein)\b|\bne suis pas (decisionnaire|decideur|decideuse)\b/, 3),
  rule(/\b(ecrire|ecrivez|adresser|adressez|contacter|contactez|voir|voyez) (a|au|aux|plutot|avec)\b/, 2),
  rule(/\b(transfere|transmis|transmets|fais suivre|faire suivre)\b/, 2),
  // ES
  fixed(
    /\bno soy (la persona|el contacto|quien) (adecuada?|indicada?|correcta?|responsable|que buscas|que busca|lleva)\b/,
    3,
  ),
  fixed(
    /\b(ya no (trabajo|trabaja|estoy|esta|formo parte|forma parte)|deje la empresa|dejo la empresa|he dejado la empresa|ha dejado la empresa)\b/,
    3,
  ),
  fixed(/\bno (me encargo|se encarga|llevo|soy responsable)\b/, 3),
  fixed(/\bno es (de )?mi (area|departamento|competencia|responsabilidad|tema)\b/, 3),
  fixed(
    /\b(ya no (esta|trabaja|sigue) (con nosotros|aqui|en la empresa))\b|\bno llevo (este|ese) tema\b|\bte paso con\b|\ble paso con\b/,
    3,
  ),
  rule(
    /\b(contacte con|contacta con|contactar con|dirijase a|dirigete a|escriba a|escribe a|hable con|habla con|pongase en contacto con)\b/,
    2,
  ),
  rule(/\b(se encarga|es (el|la) responsable|lleva (ese|este) tema|es quien lleva)\b/, 2),
  rule(/\b(reenviado|reenvio|he reenviado|te reenvio|le reenvio)\b/, 2),
  fixed(
    /\b(best|right|new|correct) (contact|person|point of contact)( going forward| now| here)? (is|would be|will be)\b|\b(moving|moved) to (another|a new|a different) (role|team|position|department)\b|\bchanged (roles|positions|jobs|teams)\b/,
    3,
  ),
  fixed(
    /\b(i'm|i am|im) (in|on the) (hr|finance|legal|engineering|it|support|accounting|design|product|marketing|sales) (team|side|department)?\b.{0,40}\b(want|need|should|try|contact|ask|talk)\b|\byou (probably|might|may) want (someone|somebody|a person)\b/,
    3,
  ),
  fixed(
    /\b(ich bin|bin) (nur|bloss|lediglich) (der |die |ein |eine )?(werkstudent(in)?|praktikant(in)?|assistenz|assistent(in)?|aushilfe|azubi)\b|\bmussen sie\b.{0,40}\b(kontaktieren|fragen|ansprechen|anschreiben)\b/,
    3,
  ),
  fixed(
    /\ba change de (poste|service|fonction|societe|role)\b|\bne s'occupe plus\b|\bn'est pas (mon|de mon) (domaine|ressort|perimetre|role)\b|\bje vous conseille de contacter\b/,
    3,
  ),
  fixed(
    /\bse (fue|ha ido|marcho|ha marchado) de la (empresa|compania)\b|\bno soy (yo )?quien (decide|lleva|se encarga)\b/,
    3,
  ),
  fixed(
    /\b(no longer|doesn't|does not) (works?|working) (here|there|for us|at)\b|\bdirect (your |all )?(inquiries|enquiries|questions|this|requests) to\b|\b(took|has taken|taken) (it|this|that|over)( over)?\b|\bnot involved in\b/,
    3,
  ),
  fixed(/\bfalsche(n)? (ansprechpartner(in)?|person|kontakt|adresse)\b/, 3),
  fixed(/\bce n'est pas moi qui\b|\best parti(e)? (de|d')\b/, 3),
  fixed(/\bya no (pertenece|forma parte|esta en|trabaja en)\b/, 3),
  fixed(/\bne (travaille|travaillons|travaillent) plus (pour|chez|avec|dans)\b|\breleve (de|du|des)\b/, 3),
  fixed(
    /\b(lo|la|esto lo) lleva (otra persona|otro|otra|mi companer[oa]|el|la)\b|\bescribele a\b|\bescribale a\b/,
    3,
  ),
  fixed(/\b(don't|doesn't|do not|does not) (choose|decide|pick|select|buy|purchase)\b/, 3),
  fixed(/\bnicht (mehr )?(zustandig|verantwortlich)\b|\bich entscheide (das|dies|es) nicht\b/, 3),
  fixed(/\bno soy (el|la) (responsable|encargad[oa]|persona)\b/, 3),
  rule(/\bpregunta a\b|\bpregunte a\b/, 2),
];

// ---------------------------------------------------------------------------------------------------
// 3. Not now / not interested / interested.
// ---------------------------------------------------------------------------------------------------

const NOT_NOW: readonly Rule[] = [
  // EN
  fixed(
    /\bnot (right )?now\b|\bnot at (the|this) (moment|time|point|stage)\b|\bnot at present\b|\bnot currently\b/,
    2,
  ),
  fixed(
    /\bnot (a|our) (priority|focus) (right now|at the moment|this (year|quarter)|for now|currently)\b/,
    3,
  ),
  fixed(/\bnot (this|for this) (year|quarter|month)\b|\bnot until\b/, 3),
  fixed(
    /\b(bad|wrong|poor|not (the|a) (right|good|great)) (timing|time)\b|\btiming (is|isn't|isnt) (not )?(right|off|bad|tough)\b/,
    3,
  ),
  rule(
    /\b(maybe|perhaps|possibly|might be|could be) (later|next (year|quarter|month)|in (q[1-4]|a few months|the (new )?year|the fall|the autumn|the spring|the summer|\d+ months))\b/,
    3,
  ),
  rule(
    /\b(reach out|circle back|follow up|check back|check in|touch base|get back to me|get in touch|ping me|try (me|us|again)|contact (me|us)|come back|revisit|reconnect|talk)\b.{0,40}\b(in|next|after|around|later|early|end of|towards|come)\b.{0,20}\b(q[1-4]|quarter|year|month|months|weeks|spring|summer|fall|autumn|winter|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|20\d\d|new year|budget|renewal|later)\b/,
    3,
  ),
  rule(/\b(next|in) (q[1-4]|quarter|year|fiscal year)\b/, 1),
  rule(
    /\b(in|during|by|after|around|until|before) (the )?(spring|summer|fall|autumn|winter|new year|second half|h2|end of (the )?year)\b/,
    2,
  ),
  rule(
    /\b(nothing new|nothing (until|before)|until (that|it|this|we|the deal) (closes|is done|ends|finishes|settles))\b|\bdown the (road|line)\b|\bnot in the next\b/,
    2,
  ),
  rule(
    /\b(vor|fruhestens|ab|nach) (dem |im )?(herbst|sommer|fruhjahr|fruhling|winter|jahresende|zweiten halbjahr|nachsten jahr|q[1-4])\b|\bzweiten halbjahr\b|\bandere prioritaten\b/,
    2,
  ),
  rule(
    /\b(pas avant|au|a l'|en|d'ici|apres) (l'automne|le printemps|printemps|l'ete|ete|automne|hiver|l'hiver|le second semestre|fin d'annee)\b|\bgel des budgets\b|\breessayez\b|\bon en reparle\b/,
    2,
  ),
  rule(
    /\b(en|para|hasta|despues de|a partir de) (el )?(otono|primavera|verano|invierno|segundo semestre|final de ano|fin de ano)\b|\b(este trimestre|este mes|este ano) (imposible|no|complicado)\b|\bno es prioridad\b/,
    2,
  ),
  rule(
    /\b(ask|try|contact|email|ping|write to|reach|call|bug|nudge) (me|us) (again|back|later)\b|\b(again|back) (in|next|after|around) (the )?(new year|q[1-4]|\d+ months|a few months|spring|summer|fall|autumn|january|february|march|april|may|june|july|august|september|october|november|december)\b/,
    3,
  ),
  rule(/\bin (q[1-4]|h[12])\b/, 2),
  fixed(/\b(for now|at the moment|right now|currently|this (year|quarter))\b/, 1),
  rule(
    /\b(budget|budgets) (is |are )?(frozen|allocated|spent|closed|locked|set)\b|\bno budget (this|until|for|right now|at the moment|left)\b|\bonce (budget|the budget)\b/,
    2,
  ),
  rule(
    /\b(under|locked into|in|signed) (a |an )?(contract|agreement)\b.{0,40}\b(until|through|till|runs|ends|expires)\b|\b(contract|renewal) (runs|ends|expires|is up|comes up)\b/,
    3,
  ),
  rule(/\b(too busy|swamped|slammed|hands are full|in the middle of)\b/, 1),
  rule(
    /\blater (this|in the|next) (year|quarter|month)\b|\bdown the (road|line)\b|\bin a (few|couple of?) (months|weeks)\b/,
    2,
  ),
  rule(/\bkeep (me|us) (posted|in mind|in the loop)\b|\bstay in touch\b/, 1),
  // DE
  fixed(
    /\b(momentan|derzeit|aktuell|zurzeit|zur zeit|im moment|gerade|dieses jahr|in diesem jahr|vorerst)\b.{0,25}\b(nicht|kein|keine|keinen)\b/,
    2,
  ),
  fixed(
    /\b(nicht|kein\w*)\b.{0,25}\b(momentan|derzeit|aktuell|zurzeit|zur zeit|im moment|gerade|vorerst|dieses jahr)\b/,
    2,
  ),
  rule(
    /\b(spater|nachstes jahr|nachsten jahr|im nachsten (jahr|quartal|monat)|nachstes quartal|in ein paar (monaten|wochen)|in einigen (monaten|wochen)|nach dem sommer|im herbst|im fruhjahr|im fruhling|anfang nachsten|ende des jahres|ende (des )?(q[1-4]|quartals)|im (q[1-4]|januar|februar|marz|april|mai|juni|juli|august|september|oktober|november|dezember)|in q[1-4])\b/,
    2,
  ),
  rule(
    /\b(melden sie sich|kommen sie|fragen sie|schreiben sie|kontaktieren sie)\b.{0,20}\b(gerne )?(wieder|nochmal|erneut|spater|im|in)\b/,
    2,
  ),
  rule(/\b(budget|vertrag)\b.{0,40}\b(bis|verplant|ausgeschopft|gebunden|lauft|eingefroren)\b/, 2),
  rule(
    /\b(nochmal|noch einmal|erneut|wieder)\b.{0,20}\b(melden|kontaktieren|schreiben|anfragen|fragen|ansprechen)\b/,
    2,
  ),
  fixed(
    /\b(gerade|momentan|derzeit|aktuell|zurzeit) (ungunstig|schlecht|schwierig|zu viel|viel los|keine zeit|keine kapazitat(en)?)\b/,
    3,
  ),
  rule(/\bim (sommer|herbst|winter|fruhjahr|fruhling|neuen jahr)\b/, 2),
  fixed(
    /\bderzeit kein bedarf\b|\bzurzeit kein bedarf\b|\baktuell kein bedarf\b|\bmomentan kein bedarf\b/,
    3,
  ),
  // FR
  fixed(
    /\bpas (pour le moment|maintenant|en ce moment|pour l'instant|cette annee|ce trimestre|tout de suite|actuellement)\b/,
    3,
  ),
  fixed(/\b(pour le moment|pour l'instant|en ce moment|actuellement)\b.{0,20}\b(pas|non)\b/, 2),
  fixed(/\bpas le (bon|meilleur) moment\b/, 3),
  rule(
    /\b(plus tard|l'annee prochaine|l'an prochain|le trimestre prochain|au prochain trimestre|dans quelques (mois|semaines)|a la rentree|apres l'ete|en (janvier|fevrier|mars|avril|mai|juin|juillet|septembre|octobre|novembre|decembre)|au (t|q)[1-4]|debut d'annee|fin d'annee|en fin d'annee|l'annee pro)\b/,
    2,
  ),
  rule(/\b(recontactez|relancez|revenez vers|recontacter|relancer|revenir vers|reprendre contact)\b/, 2),
  rule(/\b(budget|contrat)\b.{0,40}\b(jusqu'|boucle|gele|alloue|engage|epuise)/, 2),
  // ES
  fixed(
    /\b(ahora|ahorita|de momento|por ahora|por el momento|en este momento|actualmente|este ano|este trimestre) no\b|\bno (por|de) (ahora|el momento|momento)\b|\bno en este momento\b/,
    3,
  ),
  fixed(/\bno es (un )?(buen|el) momento\b/, 3),
  rule(
    /\b(mas adelante|mas tarde|el proximo ano|el ano que viene|el proximo trimestre|dentro de (unos|un par de|algunos) (meses|semanas)|despues del verano|tras el verano|en septiembre|en (enero|febrero|marzo|abril|mayo|junio|julio|agosto|octubre|noviembre|diciembre)|a finales de ano|a principios de|en el (q|t)[1-4])\b/,
    2,
  ),
  rule(
    /\b(vuelva|vuelve|volved|vuelvan) a (contactar|escribir|intentar|llamar)|\b(escribeme|escribame|contactame|contacteme|llamame|llameme) (de nuevo |otra vez )?(en|dentro|despues|a finales|el proximo|mas adelante)\b|\bretomamos\b|\bretomemos\b/,
    2,
  ),
  rule(/\b(presupuesto|contrato)\b.{0,40}\b(hasta|cerrado|asignado|congelado|agotado)\b/, 2),
  rule(
    /\btoo (early|soon) for (us|me)\b|\b(maybe |perhaps )?once (we|we've|we have|we're|the)\b.{0,30}\b(raised|grown|hired|closed|finished|launched|done|series|bigger|settled)\b/,
    3,
  ),
  rule(
    /\b(danach|dann|ensuite|despues|after that|apres)\b.{0,10}\b(gerne|gern|volontiers|con gusto|happy to|sure)\b/,
    2,
  ),
  rule(/\bnot today\b|\b(couple|few) (of )?(quarters|months)\b/, 2),
  rule(/\b(a principios|a finales|a mediados) (de|del)\b|\b(el|del) ano que viene\b|\bhold off\b/, 2),
];

const NOT_INTERESTED: readonly Rule[] = [
  // EN
  fixed(
    /\b(not|no longer|isn't|aren't|wouldn't be|am not|are not) (really |particularly |currently |at all )?(interested|a fit|a good fit|a match|relevant|for us|for me|what we need|something we need)\b/,
    3,
  ),
  fixed(
    /\bno (interest|thanks|thank you|thx|use for|requirement)\b|\bno need\b(?! to)|\bnot (something|what|a thing) (we|i)('re| are|'m| am)? ?(looking for|interested in|need|want)\b|\bno,? thanks?\b|\buninterested\b/,
    3,
  ),
  fixed(/\b(we're|we are|i'm|i am|all) (all )?(set|good|covered|sorted|fine|happy with)\b/, 2),
  fixed(
    /\b(we|i) (will|'ll|would|'d|must|have to|'m going to|am going to) (pass|decline|have to pass)\b|\bpass on this\b|\bi'll pass\b|\bwe'll pass\b/,
    3,
  ),
  fixed(
    /\b(don't|do not|doesn't|does not|won't|will not) (need|require|want(?! to (miss|lose|wait))|see a need|have a need|have (a |any )?(use|need|budget))\b/,
    2,
  ),
  fixed(/\b(not|never) (going to|gonna) (happen|work|buy|use|need)\b/, 2),
  rule(
    /\b(already (have|use|using|work with|working with|partner with|got|built|signed)|happy with (our|the) current|have (an|our own) (in-house|internal))\b/,
    2,
  ),
  fixed(/\bnot looking (for|to)\b|\bnot in the market\b/, 3),
  fixed(/^\s*(no|nope|nah|nein|non)\s*[.!,]|\b(but|pero|aber|mais) (no|nein|non)\s*[.!]*\s*$/, 2),
  fixed(
    /\b(not|wasn't|isn't|is not|was not|aren't|not really) (really |quite |a )?(for us|for me|right for us|our thing)\b/,
    3,
  ),
  fixed(/\b(decline|declining)\b|\bdon't outsource\b/, 2),
  fixed(
    /\bhard pass\b|\b(not|won't be) (going to )?mov(e|ing) forward\b|\b(have|got) (this|that|it) covered\b/,
    3,
  ),
  rule(
    /\b(decided|chose|chosen|went|gone|going) (on |with |for )?(a |another |a different )(vendor|provider|solution|tool|partner|direction|route)\b/,
    3,
  ),
  fixed(
    /\b(going to|gonna|will|'ll|have to|must|'d rather|would rather) pass\b|\bpass(ing)? on (this|that|it)\b/,
    3,
  ),
  fixed(
    /\bnot (a|really a) priority\b|\bnot something (we|i)'?d? (buy|consider|need|use|want|invest in)\b/,
    2,
  ),
  fixed(/\bplease (do not|don't) (follow up|send (more|anything))\b|\bno follow[- ]?ups?\b/, 2),
  // DE
  fixed(
    /\b(kein|keinen|keinerlei) (interesse|bedarf)\b|\bnicht interessiert\b|\binteressiert (mich|uns) (leider )?(nicht|nicht mehr|uberhaupt nicht)\b|\bnein,? danke\b/,
    3,
  ),
  fixed(
    /\b(brauchen|benotigen|haben) (wir|ich) (leider )?(nicht|keinen bedarf)\b|\b(passt|passen) (leider )?nicht\b|\bnicht relevant\b|\b(sind|bin) (bereits |schon )?(gut )?versorgt\b/,
    3,
  ),
  rule(
    /\b(haben|nutzen|verwenden|arbeiten) (bereits|schon) (mit )?(ein|eine|einen|unser|unsere|eigene|mit)\b|\bbereits eine losung\b|\bschon eine losung\b/,
    2,
  ),
  rule(
    /\b(haben|nutzen|verwenden|arbeiten)\b.{0,25}\b(bereits|schon)\b.{0,25}\b(losung|anbieter|tool|system|dienstleister|partner|software)\b/,
    2,
  ),
  fixed(/\b(wechseln|andern) (wir )?(nicht|nichts)\b|\bkein wechsel\b/, 2),
  fixed(
    /\bnicht (interessant|relevant|von interesse)\b|\b(anderen|andere) (anbieter|losung|partner)\b.{0,20}\bentschieden\b|\bentschieden\b.{0,30}\b(anderen|andere)\b/,
    3,
  ),
  fixed(/\bnichts fur (uns|mich)\b|\bverzichten\b|\bnicht notig\b|\bbrauchen (wir|ich) (das )?nicht\b/, 3),
  // FR
  fixed(
    /\bpas (du tout )?(interesse|interessee|interesses|interessees)\b|\bne (m'|nous )?interesse pas\b|\bne nous interesse pas\b|\bpas d'interet\b|\bnon,? merci\b|\bsans interet\b/,
    3,
  ),
  fixed(
    /\bpas (de )?besoin\b|\bn'(avons|ai) pas (besoin|de besoin)\b|\bne correspond pas\b|\bpas pertinent\b|\bne (sommes|suis) pas (interesse|concernes?|preneurs?)\b/,
    3,
  ),
  rule(/\b(nous avons|on a|j'ai) deja (une|un|notre|nos|ce qu'il)\b|\bdeja equipes?\b/, 2),
  rule(/\b(travaillons|travaille|travaillent|sommes) deja (avec|equipes?|sous contrat)\b/, 2),
  fixed(/\b(un )?autre (choix|prestataire|solution|fournisseur)\b|\bnon merci\b/, 3),
  fixed(/\b(aucun|nul) besoin\b|\bpas pour (nous|moi)\b/, 3),
  // ES
  fixed(
    /\bno (me|nos) interesa\b|\bno (estoy|estamos) interesad[oa]s?\b|\bno,? gracias\b|\bsin interes\b|\bningun interes\b/,
    3,
  ),
  fixed(
    /\bno (lo )?(necesitamos|necesito)\b|\bno (es|son) (para nosotros|relevante)\b|\bno encaja\b|\bno nos (sirve|encaja|aplica)\b/,
    3,
  ),
  rule(/\bya (tenemos|contamos con|trabajamos con|usamos|utilizamos)\b/, 2),
  fixed(/\bno (estamos|estoy) buscando\b|\bno buscamos\b/, 3),
  fixed(/\bno (nos|me) (hace|hacen) falta\b/, 3),
  fixed(
    /\b(otra|otro) (solucion|proveedor|empresa|herramienta)\b|\bno es algo que (necesitemos|necesite|busquemos)\b/,
    3,
  ),
  rule(/\b(internamente|in-house|in house|en interne|intern)\b/, 1),
  fixed(
    /\b(didn't|did not|doesn't|does not|won't|wouldn't) work for us\b|\bso no\b|\bdon't see (us|the need|a need|a fit)\b|\bno need for (this|it|that)\b/,
    3,
  ),
  fixed(
    /\b(fur uns|fur mich) (leider )?nicht (passend|geeignet|relevant|interessant)\b|\b(zufrieden|glucklich) mit (unserer|unserem|der|dem) (jetzigen|aktuellen|bestehenden)\b/,
    3,
  ),
  fixed(/\b(satisfaits?|satisfaites?|contents?|contentes?) (de|avec) (notre|nos)\b/, 3),
  fixed(/\bestamos (bien|contentos|satisfechos) (asi|con lo que tenemos|con nuestro|con nuestra)\b/, 3),
  fixed(
    /\bstick (with|to) (what we have|our (current|existing)|the current)\b|\b(it's|it is|that's|the answer is) a (no|pass)\b|\bdoes(n't| not) (fit|match|meet) (our|my) (needs|requirements|criteria)\b/,
    3,
  ),
  fixed(/\bkommt (fur uns |fur mich )?(leider )?nicht in frage\b|\bkeinen bedarf\b/, 3),
  fixed(/\bpas (l'utilite|d'utilite|utile pour nous)\b|\bc'est (non|un non)\b/, 3),
  fixed(/\bno (lo )?(vemos|veo) (necesario|util|interesante)\b|\bes un no\b/, 3),
  fixed(/^\W*pass\b|\bnot in need\b|\b(say|saying|answer) no\b|\bno (appetite|use|need) for\b/, 3),
  fixed(/\b(benotigen|brauchen) (wir |ich )?(so etwas|sowas|das|dies|dergleichen)\b.{0,10}\bnicht\b/, 3),
  fixed(/(^|[,.!]\s*)(no|nope|nein|non)\s*([.!]+|$)/, 2),
  fixed(
    /\bdecided (not to|against) (pursue|pursuing|proceed|proceeding|move forward|moving forward|go ahead|going ahead|it|this)\b/,
    3,
  ),
  fixed(/\bhaben wir (schon|bereits)\b/, 3),
  fixed(/\bne nous concerne pas\b|\bne (donnerons|donnons|donnerai) pas suite\b/, 3),
];

const INTERESTED: readonly Rule[] = [
  // EN
  rule(/\b(interested|intrigued|curious|keen)\b/, 2),
  rule(
    /\b(sounds|looks|seems) (good|great|interesting|promising|cool|relevant|useful)\b|\bthat (could|might|would) (be|work)\b/,
    2,
  ),
  rule(
    /\blet'?s (talk|chat|connect|meet|set (up|something up)|schedule|book|find a time|do it|hop on|jump on|discuss|speak)\b/,
    3,
  ),
  rule(
    /\b(happy|glad|open|willing|keen|love|like|want|would like|i'd like|we'd like) to (chat|talk|connect|meet|learn|hear|see|discuss|explore|try|hop on|jump on|set up|book|get|know|speak)\b/,
    3,
  ),
  rule(
    /\b(book|schedule|set up|arrange|grab|find) (a |some )?(call|meeting|time|demo|slot|chat|15|30|20)\b/,
    3,
  ),
  rule(
    /\b(can|could|shall|should) we (talk|chat|meet|set up|schedule|speak|hop on|jump on|discuss|arrange)\b/,
    3,
  ),
  rule(
    /\b(send|share|forward) (me|us|over)?\b.{0,25}\b(info|information|details|pricing|prices|deck|case stud(y|ies)|brochure|one-?pager|proposal|quote|more)\b/,
    2,
  ),
  rule(/\btell me more\b|\blearn more\b|\bmore (info|information|details)\b/, 2),
  rule(
    /\blet me know (when|what time|a time|a few times|some times|your availability|what works)\b|\b(times?|slots?|dates?) that works?\b/,
    3,
  ),
  rule(
    /\bopen to (a |an |some )?(\w+ ){0,2}(call|chat|conversation|demo|meeting|intro|discussion|trial|pilot)\b/,
    3,
  ),
  rule(/\b(put|add|send) (something|a (meeting|call|time|slot)|an invite) (on|in|to) (my|our) calendar\b/, 3),
  rule(
    /\b(shoot|send|give) me (a few|some|your) (slots|times|options|availability)\b|\b\d{1,2} ?(mins?|minutes)\b.{0,20}\?/,
    3,
  ),
  rule(
    /\b(could|might|would) be (useful|helpful|valuable|worth)\b|\bwho else\b.{0,30}\b(use|uses|using)\b|\bwhat'?s the (onboarding|setup|process|pricing)\b/,
    2,
  ),
  rule(
    /\b(send|forward) (me |us )?(the |an |a )?(invite|invitation|recording|calendar)\b|\bput me down for\b|\bsign me up\b|\bregister me\b/,
    3,
  ),
  rule(/\bhappy to (take a look|have a look|look|review|check it out)\b/, 3),
  rule(/\b(get|getting) started\b|\bnext steps?\b|\bsign (us )?up\b|\bonboard(ing)? (us|my team)\b/, 2),
  rule(/\b(how much|what('s| is| does)?( the)? (pricing|price|cost)|what does it cost|pricing)\b/, 2),
  rule(
    /\b(does|do|would|how about|what about|is|are you (free|available)) (monday|tuesday|wednesday|thursday|friday|tomorrow|next week|this week)\b/,
    3,
  ),
  rule(
    /\b(works for me|work for me|i'm free|i am free|available (on|at|tomorrow|next|this|monday|tuesday|wednesday|thursday|friday))\b/,
    3,
  ),
  rule(/\b(calendar|calendly|invite|zoom|teams link|google meet)\b/, 1),
  rule(/\b(demo|trial|pilot)\b/, 1),
  rule(/\b(call me|give me a call|ring me|my (cell|mobile|number|phone))\b/, 2),
  rule(/\b(yes|yep|yeah|sure|absolutely|definitely|of course)\b/, 1),
  rule(
    /\bhow (does|do|would|can) (it|this|you|your)\b|\bdo you (integrate|support|offer|work with|have)\b|\bcan (it|you) (integrate|handle|do|support)\b/,
    2,
  ),
  // DE
  rule(/\b(interessiert|interessant|interesse)\b/, 2),
  rule(/\b(gerne|gern)\b/, 2),
  rule(
    /\bklingt (gut|spannend|interessant|vielversprechend)\b|\bhort sich (gut|spannend|interessant) an\b/,
    2,
  ),
  rule(/\b(lassen sie uns|lass uns)\b.{0,30}\b(sprechen|telefonieren|treffen|termin|austauschen)\b/, 3),
  rule(/\b(termin|telefonat|gesprach|videocall|call|kurzes gesprach|austausch)\b/, 1),
  rule(/\b(haben|hatten) sie\b.{0,30}\bzeit\b|\bwann (passt|hatten sie|haben sie)\b/, 2),
  rule(
    /\b(konnen|konnten|sollten) wir\b.{0,30}\b(sprechen|telefonieren|treffen|reden|austauschen|uns unterhalten)\b/,
    3,
  ),
  rule(
    /\b(schicken|senden|ubersenden|schick|sende) sie (mir|uns)\b|\bschicken sie mir\b|\b(mehr|weitere) (infos|informationen|details|unterlagen)\b|\bunterlagen\b/,
    2,
  ),
  rule(/\b(was kostet|preise|preis|kosten|angebot)\b/, 2),
  rule(/\b(passt (mir|uns|bei mir|gut)|habe zeit|ich bin (frei|verfugbar)|rufen sie mich an)\b/, 3),
  rule(/\b(ja|jawohl|klar|sehr gerne)\b/, 1),
  // FR
  rule(/\b(interesse|interessee|interesses|interessant|m'interesse|nous interesse)\b/, 2),
  rule(/\b(volontiers|avec plaisir|pourquoi pas|ca me va|ca marche|d'accord|ok pour)\b/, 2),
  rule(/\b(appel|rendez-vous|rdv|echange|echanger|visio|reunion|creneau|creneaux)\b/, 1),
  rule(
    /\b(envoyez|envoyer|transmettez|faites parvenir)(-moi|-nous| moi| nous)?\b.{0,30}\b(infos?|informations|documentation|doc|tarifs?|plaquette|presentation|details|devis|proposition|offre)\b/,
    2,
  ),
  rule(/\b(quel est le (prix|tarif|cout)|combien (ca coute|coute)|vos tarifs|tarifs?|prix)\b/, 2),
  rule(
    /\b(je suis (disponible|dispo)|disponible (mardi|lundi|mercredi|jeudi|vendredi|demain|la semaine))\b/,
    3,
  ),
  rule(/\b(oui|bien sur|tout a fait)\b/, 1),
  rule(
    /\b(ravie?|heureux|heureuse|content|contente) (d'en|de) (discuter|parler|echanger)\b|\b(un|vous avez un) creneau\b|\benvoyez-moi une invitation\b|\bpourrait nous etre utile\b/,
    3,
  ),
  rule(
    /\b(je veux bien|j'aimerais bien|caler un|fixer un|planifier un|organiser un) ?(rdv|rendez-vous|appel|echange|call|creneau|point)?\b|\bquand (seriez|etes)-vous (disponible|dispo)\b|\bpeut nous interesser\b/,
    2,
  ),
  rule(
    /\b(on peut|pouvons-nous|peut-on|pourrions-nous) (en )?(parler|discuter|echanger|se voir|s'appeler)\b/,
    3,
  ),
  // ES
  rule(/\b(me interesa|nos interesa|interesad[oa]s?|interesante)\b/, 2),
  rule(/\b(me|nos|le) (podria |puede |podrian )?interesa(r|ria|rian)?\b/, 2),
  rule(/\b(me|nos) (encantaria|gustaria)\b/, 2),
  rule(
    /\b(cuentame|cuenteme|cuentenme) mas\b|\bcomo funciona\b|\b(pasame|paseme|mandame|enviame) (una|la|el) (propuesta|presupuesto|oferta|info)\b|\bme cuadra\b|\bhacemos una (llamada|reunion)\b/,
    3,
  ),
  rule(/\b(podemos|podriamos) (hablar|vernos|reunirnos|charlar|agendar)\b/, 3),
  rule(/\b(con gusto|encantad[oa]|me parece bien|suena bien|perfecto|de acuerdo|claro que si|adelante)\b/, 2),
  rule(/\b(llamada|reunion|videollamada|agendar|agendemos|hablemos|charlar|cita)\b/, 2),
  rule(
    /\b(envieme|envienme|enviame|mandame|mandeme|envia|envie|enviar|mandar)\b.{0,30}\b(informacion|info|detalles|precios|propuesta|presentacion|dossier|catalogo)\b|\bmas informacion\b/,
    2,
  ),
  rule(/\b(cuanto cuesta|precio|precios|tarifa|tarifas|cotizacion)\b/, 2),
  rule(/\b(estoy disponible|tengo (hueco|tiempo)|me viene bien|te viene bien|le viene bien)\b/, 3),
  rule(/\b(si|claro|por supuesto)\b/, 1),
  rule(
    /\bwhat (does|would|will) (the |an? )?(implementation|onboarding|setup|rollout|pricing|it|this|a pilot|a trial) look like\b|\bhow long (does|would|will) (it|implementation|setup|onboarding|rollout) take\b|\b(you've|you have) got my attention\b/,
    3,
  ),
  rule(/\bzeigen sie (mal|mir|uns)\b|\bpasst (ihnen|es|euch)\b|\bmehr (daruber )?erfahren\b/, 2),
  rule(/\b(un |le |votre )?devis\b|\bm'appeler\b|\bm'interesserait\b/, 2),
  rule(/\b(i'd|we'd|i would|we would) (like|love) (the|a|an|your|some|more|to see|to get)\b/, 2),
  rule(
    /\b(can|could) you (show|walk) (me|us)\b|\bprice (sheet|list)\b|\binclude (a |the )?(price|quote|pricing)\b/,
    2,
  ),
  rule(/\b(share|send|show)\b.{0,20}\b(video|demo|overview|walkthrough|recording|deck|presentation)\b/, 2),
  rule(/\btiming is (right|good|perfect|great)\b|\bgood timing\b|\bperfect timing\b/, 3),
  rule(/\b(wie teuer|was kostet)\b|\b(brauchen|gebrauchen) (konnten|konnen)\b/, 2),
];

/**
 * The category of a reply's own words (pass {@link replyText}'s output). Pure and synchronous; the
 * same text always gets the same category.
 */
export function classifyByRules(text: string): ReplyCategory {
  const folded = foldText(text).trim();
  if (folded === '') return 'other';
  if (isOptOut(folded)) return 'unsubscribe_request';
  const wrongPerson = score(folded, WRONG_PERSON);
  if (wrongPerson >= 3) return 'wrong_person';
  const scores: [ReplyCategory, number][] = [
    ['not_now', score(folded, NOT_NOW)],
    ['not_interested', score(folded, NOT_INTERESTED)],
    ['interested', score(folded, INTERESTED)],
  ];
  // A deferral needs a real cue (2): a lone "currently" or "for now" only breaks a tie.
  const [best, bestScore] = scores.reduce((a, b) => (b[1] > a[1] ? b : a));
  if (bestScore >= 2) {
    if (best === 'not_interested' && scores[0][1] >= 2) return 'not_now';
    return best;
  }
  if (wrongPerson >= 2) return 'wrong_person';
  if (bestScore > 0) return best;
  // Nothing else recognised, but the reply speaks of stopping, removal or lists (un-negated): a written
  // opt-out is the costliest miss, so words of that family decide here.
  return score(folded, OPT_OUT_WORDS) > 0 ? 'unsubscribe_request' : 'other';
}
