/**
 * `wrong_person`: the writer is not the one to ask, has left, or points to someone else.
 */
import { fixed, rule, type Rule } from './rule.js';

export const WRONG_PERSON: readonly Rule[] = [
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
  fixed(
    /\bno longer (covers?|covering|handles?|in charge of|responsible for)\b|\bmoved to (our|another|a different|the) .{0,20}(office|team|role|department|position)\b/,
    3,
  ),
  rule(/\bcontact\b.{0,30}\binstead\b/, 2),
  fixed(
    /\bi (just|only) (handle|do|work on|look after|deal with)\b|\byou('ll| will)? want to (talk|speak) (to|with)\b/,
    3,
  ),
  fixed(
    /\bnicht mehr\b.{0,40}\b(tatig|beschaftigt|angestellt)\b|\b(entscheidet|entscheiden)\b.{0,40}\b(geschaftsfuhrung|chef|leitung|vorstand|einkauf|kollege|kollegin)\b|\bnicht ich\b/,
    3,
  ),
  fixed(/\bne (travaille|travaillons|travaillent) plus (ici|la)\b/, 3),
  fixed(/\bno soy yo\b|\bdeberias (hablar|contactar|escribir)\b|\bdeberia (hablar|contactar|escribir)\b/, 3),
  fixed(/\bim ruhestand\b|\bin rente\b|\bretraite\b|\bjubilad[oa]\b/, 3),
  fixed(/\byo no (decido|llevo|me encargo)\b|\bes cosa (del|de la|de)\b/, 3),
];
