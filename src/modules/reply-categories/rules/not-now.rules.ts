/**
 * `not_now`: a decline for now that leaves the door open (a later quarter, season, year, contract end).
 */
import { fixed, rule, type Rule } from './rule.js';

export const NOT_NOW: readonly Rule[] = [
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
  rule(/\b(frozen|freeze|paused|on hold)\b.{0,30}\b(until|till|through)\b|\btry (then|again then)\b/, 2),
  rule(
    /\b(after|nach|apres|despues de) (the |den |les |la |las )?(easter|christmas|the holidays|holidays|ostern|pfingsten|weihnachten|ferien|sommerpause|paques|noel|vacances|semana santa|navidad|vacaciones)\b/,
    2,
  ),
  rule(/\b(melden|kontaktieren|schreiben|fragen)\b.{0,30}\b(nochmal|noch einmal|erneut|wieder)\b/, 2),
];
