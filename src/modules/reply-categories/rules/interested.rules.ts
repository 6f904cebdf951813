/**
 * `interested`: wants to talk, asks for details, pricing, a demo or a meeting, or agrees.
 */
import { rule, type Rule } from './rule.js';

export const INTERESTED: readonly Rule[] = [
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
  rule(/\b(i'm|i am|we're|we are|count (me|us)) in\b|\bdoes it (work|integrate) with\b/, 2),
  rule(/\bneugierig\b|\bwie funktioniert\b/, 2),
  rule(
    /\b(appelez-moi|rappelez-moi|llamame|llameme|call me)\b|\bcontinuez\b|\bkeep following up\b|\bdon't (close|stop)\b/,
    2,
  ),
];
