/**
 * `unsubscribe_request`: a written opt-out, not negated ("no need to remove me") and not a conditional
 * or a quoted footer ("if you want to unsubscribe…"). Rules are concepts more than phrases: a stop word
 * bound to a contact verb and its object, a removal verb bound to the writer's own address, data or a
 * list, the opt-out words, data-protection requests, a lone "STOP". Other senses of "remove" or "stop"
 * ("remove the manual work", "stop by our booth") match none of them.
 */
import { fixed, rule, score, type Rule } from './rule.js';

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
  rule(/\btake (me|us|my (e-?mail|address|name|details|data)) out of (your|the)\b/),
  fixed(/\b(bitte )?nicht mehr (melden|anrufen|mailen|anschreiben)\b/),
];

/** A sentence about unsubscribing that is not a request: our own footer, a conditional, a question about it. */
const NOT_A_REQUEST =
  /\b(if you (want|wish|would like|no longer wish|prefer)|if you'd|to unsubscribe,? (click|reply|use|follow)|click here|unsubscribe link|si vous (souhaitez|ne souhaitez)|pour vous desinscrire|wenn sie (keine|sich abmelden)|um sich abzumelden|si (no )?(desea|quiere)s? (darse|dejar|recibir)|para darse de baja,? (haga|pulse))\b/;

/** A whole reply that is one opt-out word ("STOP", "Remove", "Baja", "Abmelden"). */
const ONE_WORD_OPT_OUT =
  /^\W*(please |bitte |svp |por favor )?(stop|stopp|stop it|please stop|unsub|unsubscribe me|remove|remove me|unsubscribe|delete|delete me|opt out|baja|abmelden|austragen|loschen|desinscription|desabonnement|desinscrire|desinscrivez-moi|stop svp|stop please)(\W+(stop|stopp))*([,.!]? ?(please|pls|bitte|svp|por favor|merci|danke|gracias|thanks|thank you))?\W*$/;

/** Words of the opt-out family, read only when no category was recognised (see classifyByRules). */
export const OPT_OUT_WORDS: readonly Rule[] = [
  rule(
    /\b(stop|stopp|unsub\w*|opt\W?out|remove|spam|refrain|cease|discontinue|refuse|refuser|rechaz\w*|verweiger\w*|widersprech\w*|widerspreche|abmeld\w*|austrag\w*|losch\w*|entfern\w*|verteiler|desinscri\w*|desabonn\w*|retir\w*|supprim\w*|arret\w*|baja|elimin\w*|borr\w*|exclu\w*|quit(a|e|en|ad|ar)\w*|dej(a|en|ad) de)\b/,
    1,
  ),
];

export function isOptOut(text: string): boolean {
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
