/**
 * `not_interested`: a decline (no need, already has a solution, not a fit).
 */
import { fixed, rule, type Rule } from './rule.js';

export const NOT_INTERESTED: readonly Rule[] = [
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
  fixed(/\b(won't|will not|aren't|are not|not) (be )?(buying|purchasing|investing in|signing up for)\b/, 3),
  fixed(
    /\bno (plans?|intention) to (change|switch|buy|replace|move|look|invest|add)\b|\b(isn't|is not|not) (something|anything) (we|i)('d| would| will)? (use|need|buy|consider)\b/,
    3,
  ),
  fixed(
    /\blohnt sich (fur uns |fur mich )?(leider )?nicht\b|\bpas l'usage\b|\bpas d'usage\b|\bno (lo |la )?(vamos a|voy a) (contratar|comprar|usar)\b/,
    3,
  ),
];
