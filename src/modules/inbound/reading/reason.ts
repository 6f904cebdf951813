/**
 * Decides a bounce's reason (CONTRACT §18) from what a report says about one recipient: an explicit
 * hint, the diagnostic text, the enhanced status code (RFC 3463 / RFC 5248 registry), the SMTP reply
 * code and the RFC 3464 action. The taxonomy and the order of the checks follow sisimai's (the
 * reference bounce classifier: https://libsisimai.org/en/reason/); the phrase patterns are this
 * module's own, generalised so that the same words mean the same reason whoever wrote them.
 *
 * A provider's documented code (Spectrum, Cox, GoDaddy, Orange, i.ua, Exchange resolver codes,
 * Gmail's "(state N)") is read first; then two passes, as sisimai does it:
 * 1. reasons that the text (or a status that names them exactly) decides even against another
 *    status: our sending quota, TLS, mailbox full, message too big, suspended, moved, relaying,
 *    SPF/DKIM/DMARC, unknown user, the recipient's filter, PTR, RFC compliance, the sender refused,
 *    unknown host, reputation, IP blocklists, connection and rate limits, spam;
 * 2. otherwise the status's own meaning, unless it is vague (x.0.0, x.7.1, x.3.0, x.4.x...), in which
 *    case the softer text patterns (policy, virus, security, system, network, expiry...) come first,
 *    then the status class, the reply code, the action, and finally `on_hold` (a reason was given but
 *    it is not one we know) or `undefined` (nothing to go on).
 *
 * `hard` is true only for the address-level reasons (HARD_REASONS), never from a code class alone.
 * Pure and synchronous; every pattern is compiled once, linear in the input, which is cut to 1,000
 * characters before matching.
 */
import { HARD_REASONS, type BounceReason, type ReasonInput, type SmtpCommand } from './types.js';

/** The longest diagnostic read, as CONTRACT §18 stores it. */
export const MAX_DIAGNOSTIC_CHARS = 1000;

type Rule = readonly [BounceReason, RegExp];

/** Where in the SMTP conversation the refusal came, when the text says so. */
type Stage = 'connect' | 'helo' | 'mail' | 'rcpt' | 'data' | null;

// ------------------------------------------------------------------------------------------------
// Enhanced status codes (RFC 3463, RFC 5248 registry; RFC 7372, RFC 7505, RFC 8689...). Only codes
// whose meaning is one reason; vague ones (x.0.0, x.3.0, x.4.0, x.5.0, x.7.0) are left to the text.
// ------------------------------------------------------------------------------------------------
const STATUS_REASONS: Readonly<Record<string, BounceReason>> = {
  '1.0': 'user_unknown', // Other address status (in practice: the recipient address)
  '1.1': 'user_unknown', // Bad destination mailbox address
  '1.2': 'host_unknown', // Bad destination system address
  '1.3': 'user_unknown', // Bad destination mailbox address syntax
  '1.4': 'filtered', // Destination mailbox address ambiguous
  '1.6': 'has_moved', // Destination mailbox has moved, no forwarding address
  '1.7': 'rejected', // Bad sender's mailbox address syntax
  '1.8': 'rejected', // Bad sender's system address
  '1.9': 'system_error', // Message relayed to non-compliant mailer
  '1.10': 'not_accept', // Recipient address has null MX (RFC 7505)
  '2.0': 'filtered', // Other or undefined mailbox status
  '2.1': 'suspended', // Mailbox disabled, not accepting messages
  '2.2': 'mailbox_full', // Mailbox full
  '2.3': 'exceed_limit', // Message length exceeds administrative limit
  '2.4': 'filtered', // Mailing list expansion problem
  '3.0': 'system_error', // Other or undefined mail system status (5.3.0; 4.3.0 says nothing)
  '3.1': 'system_full', // Mail system full
  '3.2': 'not_accept', // System not accepting network messages
  '3.3': 'system_error', // System not capable of selected features
  '3.4': 'message_too_big', // Message too big for system
  '3.5': 'system_error', // System incorrectly configured
  '4.1': 'expired', // No answer from host
  '4.2': 'network_error', // Bad connection
  '4.3': 'system_error', // Directory server failure
  '4.4': 'host_unknown', // Unable to route (5.4.4; 4.4.4 is network_error, below)
  '4.5': 'system_full', // Mail system congestion
  '4.6': 'network_error', // Routing loop detected
  '4.7': 'expired', // Delivery time expired
  '4.8': 'network_error', // Retry on IPv4
  '5.2': 'syntax_error', // Syntax error
  '5.3': 'too_many_connections', // Too many recipients
  '5.4': 'system_error', // Invalid command arguments
  '5.5': 'system_error', // Wrong protocol version
  '5.6': 'syntax_error', // Authentication exchange line too long
  '6.0': 'content_error', // Other or undefined media error
  '6.1': 'content_error', // Media not supported
  '6.2': 'content_error', // Conversion required and prohibited
  '6.3': 'content_error', // Conversion required but not supported
  '6.5': 'content_error', // Conversion failed
  '6.6': 'content_error', // Message content not available
  '6.7': 'content_error', // Non-ASCII addresses not permitted
  '6.8': 'content_error', // UTF-8 string reply required
  '6.9': 'content_error', // UTF-8 header cannot be transferred
  '6.10': 'content_error', // Message not supported for the recipient's encoding
  '7.0': 'security_error', // Other or undefined security status
  '7.1': 'security_error', // Delivery not authorized, message refused (5.7.1; 4.7.1 is blocked)
  '7.2': 'security_error', // Mailing list expansion prohibited
  '7.3': 'security_error', // Security conversion required but not possible
  '7.4': 'security_error', // Security features not supported
  '7.5': 'security_error', // Cryptographic failure
  '7.6': 'security_error', // Cryptographic algorithm not supported
  '7.7': 'security_error', // Message integrity failure
  '7.8': 'security_error', // Authentication credentials invalid
  '7.9': 'policy_violation', // Authentication mechanism too weak; providers use it for policy refusals
  '7.10': 'security_error', // Encryption needed
  '7.11': 'security_error', // Encryption required for requested authentication mechanism
  '7.13': 'suspended', // User account disabled
  '7.14': 'security_error', // Trust relationship required
  '7.15': 'security_error', // Priority level too low
  '7.16': 'message_too_big', // Message too big for the specified priority
  '7.17': 'has_moved', // Mailbox owner has changed
  '7.18': 'has_moved', // Domain owner has changed
  '7.19': 'security_error', // RRVS test cannot be completed
  '7.20': 'auth_failure', // No passing DKIM signature found
  '7.21': 'auth_failure', // No acceptable DKIM signature found
  '7.22': 'auth_failure', // No valid author-matched DKIM signature found
  '7.23': 'auth_failure', // SPF validation failed
  '7.24': 'auth_failure', // SPF validation error
  '7.25': 'require_ptr', // Reverse DNS validation failed
  '7.26': 'auth_failure', // Multiple authentication checks failed
  '7.27': 'rejected', // Sender address has null MX (RFC 7505): the sender's domain, not the recipient
  '7.28': 'spam_detected', // Mail flood of similar abusive messages
  '7.29': 'auth_failure', // ARC validation failure
  '7.30': 'security_error', // REQUIRETLS support required
};

/** Where a transient (4.x.x) code means something else than its permanent twin. */
const TRANSIENT_STATUS_REASONS: Readonly<Record<string, BounceReason | null>> = {
  '3.0': null,
  '4.4': 'network_error', // 4.4.4 Unable to route, for now
  '7.1': 'blocked', // 4.7.1 Delivery not authorized: greylisting, IP reputation
  '7.2': 'blocked',
};

/**
 * Status meanings that are too vague to beat the text: when the status says only this, the text
 * patterns of the second pass are tried first (sisimai's "retry" set).
 */
const VAGUE_STATUS_REASONS: ReadonlySet<BounceReason> = new Set([
  'user_unknown',
  'host_unknown',
  'suspended',
  'expired',
  'network_error',
  'system_error',
  'security_error',
]);

// ------------------------------------------------------------------------------------------------
// Phrase patterns (lower-cased input). Kept short and general: a phrase family per line.
// ------------------------------------------------------------------------------------------------

const MAILBOX_FULL =
  /mail ?box (?:is |was )?(?:full|over ?quota)|full mailbox|mail ?folder is full|\bover (?:the )?(?:allowed |disk |storage )?quota|\bquota (?:exceeded|violation|usage exceeded|full)|(?:disk|diskspace|mail|mailbox|maildir|storage|user ?disk|domain ?disk) quota|exceed(?:ed|s|ing)? (?:the |its |their |his |her |your )?(?:mailbox |storage |disk |email )?(?:quota|storage allocation)|mailbox (?:has )?exceeded|exceeded (?:the )?local limit|not enough (?:disk |storage )?space|(?:does not|doesn't) have enough (?:disk |storage )?space|space has been used up|too many messages (?:in|on) (?:the )?(?:mailbox|server)|too much mail data|mailbox would exceed|mailbox size limit exceeded|mail file size exceeds|bo[iî]te (?:aux lettres |du destinataire |de r[eé]ception )?pleine|(?:postfach|mailbox) (?:ist )?voll|speicherplatz|quota (?:überschritten|d[eé]pass[eé]|superata|excedida|superada)|buz[oó]n (?:lleno|completo)|casella (?:di posta )?piena|caixa (?:postal |de correio )?(?:cheia|lotada)|ящик переполнен|(?:邮箱|信箱)(?:已满|容量不足)|メールボックス(?:が|の容量が)(?:いっぱい|一杯|満杯)|容量(?:を)?超過|容量がいっぱい/;

const MESG_TOO_BIG =
  /message (?:is |was )?too (?:big|large)|message file too big|(?:message|mail|email) size (?:exceeds|limit|too)|\bsize limit|exceed(?:s|ed)? (?:the )?(?:fixed |allowed |maximum |max )*(?:inbound )?(?:message |mail )?size|max(?:imum)? (?:inbound )?(?:message|e-?mail) size|message length exceeds|line limit exceeded|taille limite|resolver\.rst\.recipsizelimit|nachricht (?:ist )?zu gro/;

const SUSPENDED =
  /(?<!sender |sending )(?:account|mailbox|user|address|recipient)(?: [^ ]{1,64})? (?:is |has been |was )?(?:currently |temporarily |temporary )?(?:disabled|suspended|deactivated|inactive|frozen|locked|terminated|discontinued)|(?:inactive|disabled|suspended|deactivated|frozen) (?:account|mailbox|user)|(?:is currently|has been) (?:suspended|locked|disabled)|temporary locked|tried to reach is (?:disabled|inactive)|recipient account is blocked| is no longer valid\.|banned recipient|mailbox cannot be accessed|user or domain is disabled|compte du destinataire est bloque|boite du destinataire archivee|archived recipient|recipient suspend|no longer accepts mail|mailbox unavailable or access denied|konto (?:ist )?(?:gesperrt|deaktiviert)|compte (?:d[eé]sactiv[eé]|suspendu|bloqu[eé])|cuenta (?:desactivada|suspendida|bloqueada)|conta (?:desativada|suspensa|bloqueada)/;

const HAS_MOVED = /has been replaced by|mailbox has moved|address has moved|recipient no longer on server/;

const NO_RELAYING =
  /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited|not allowed|refused)|(?:unable|not (?:permitted|allowed|configured)) to relay|not an open relay|as a relay|insecure mail relay|relaying mail to|\bnot a gateway|not local host|we do(?:n't| not) handle mail for|that domain isn't in my list of allowed rcpthosts?|\bno relaying|requires authentication when attempting to send to a non-local|email address is not verified|identities failed the check|mail relay denied|credentials for relay|not authorized to send (?:e-?mail )?directly/;

const AUTH_FAILURE =
  /\b(?:spf|dkim|dmarc)\b|sender policy framework|authentication checks? (?:failed|failure)|does not meet the required authentication level|unauthenticated (?:e-?mail|message)s? from|not (?:a )?designated (?:as )?permitted sender|not allowed to send mail\. .{0,40}_401|(?:fails?|failed) to pass authentication|does not have authentication information/;

/** Words saying the recipient address does not exist. */
const USER_UNKNOWN =
  /(?:user|recipient|mailbox|address|addressee|account|local[- ]part|e-?mail account)(?: name)?(?: (?!domain|sender|server|host)[<(]?[^ ]{1,80}[>)]?)? (?:is )?(?:unknown|not (?:found|known|exist|listed|valid|a valid|local|active|ok)|(?:does|did) not exist|doesn't exist|could not be found|couldn't be found|invalid|no longer valid|unavailable)|(?:unknown|non-?existent|no such) (?:user|recipient|mailbox|e-?mail address|local[- ]part|addressee|person|account|destination mailbox|mail ?box|virtual user|rcpt)|(?:invalid|bad|not a valid|not a known) (?:user|recipient|mailbox|address|e-?mail address|local[- ]part|addressee|account|destination mailbox|rcpt)|no valid recipients(?: for this mm|, bye)|no such address|(?:address|mailbox) not present|not an active address|destination addresses were unknown|not a local address|can't accept user|email name is not found|(?:wrong|invalid) or no longer valid|recipient is not accepted|envelope recipient has been denied|missing home directory|that domain or user isn't in my list of allowed rcpthosts|resolver\.adr\.recipient ?notfound|\bno (?:account|mailbox|mail box) (?:by that name|here|found|available)|no one at this address|address (?:not found|unknown|does not exist|couldn't be found)|recipient address rejected: (?:user|invalid|unknown|access denied|userunknown)|the email account that you tried to reach does not exist|resolver\.adr\.(?:recip(?:ient)?notfound|exrecipnotfound)|doesn't have a [^ ]{1,40} account|not listed in (?:domino directory|public name & address book)|invalid final delivery userid|\bbad ?rcpt ?to\b|\bbadrecipientto\b|not in my validrcptto|does not exist(?: here| on this system)?\.|ce destinataire n'existe pas|utilisateur (?:inconnu|introuvable)|destinataire (?:inconnu|introuvable|invalide)|adresse inconnue|(?:adresse|empfänger|benutzer|postfach) (?:unbekannt|existiert nicht|nicht gefunden)|usuario (?:desconocido|inexistente|no existe)|destinatario (?:desconocido|sconosciuto|inesistente|no existe)|utente (?:sconosciuto|inesistente)|usu[aá]rio (?:desconhecido|inexistente|n[aã]o existe)|destinat[aá]rio desconhecido|пользовател[ья] не (?:найден|существует)|(?:адрес|адресат|получатель) не (?:найден|существует)|нет такого пользователя|(?:用户|收件人|地址|帐户|账户)不存在|宛先不明|unbekannte?r? (?:empfänger|benutzer)|empfänger(?:adresse)? (?:unbekannt|existiert nicht)|benutzer (?:unbekannt|existiert nicht)|no existe|usuario desconocido|nessun utente|存在しない(?:ユーザ|アドレス|宛先)|宛先(?:が|の)(?:見つかりません|不明)|ユーザ(?:ー)?(?:が|は)存在しません/;

/** The words say the *domain* is unknown (which "address is unknown" would otherwise catch). */
const DOMAIN_UNKNOWN =
  /unknown domain|domain (?:name )?(?:not found|unknown|does not exist)|no such domain|mail domain mentioned/;

/** Big providers' own words for a missing account: never a filter's disguise, whatever the stage. */
const PROVIDER_UNKNOWN =
  /the email account that you tried to reach does not exist|doesn't have a [^ ]{1,40} account|no such user here|recipient not found by smtp address lookup|recipient address rejected: access denied/;

/** The recipient's own filter refused the message (sisimai: filtered). */
const FILTERED =
  /only accept(?:s|ing) mail from|refused due to recipient preferences|message rejected due to user rules|\buser reject|you have been blocked by the recipient|is not accepting any mail|resolver\.rst\.notauthorized|has restricted sms e-mail|\bbounced address|this account is protected by|due to extended inactivity|refuse(?:s|d)? to receive (?:mail|e-?mail|this)|recipient (?:has )?(?:rejected|blocked|refused) (?:your|this|the sender)/;

const REQUIRE_PTR =
  /reverse (?:dns|lookup|dns lookup)|\bptr\b|\brdns\b|cannot find your hostname|ip name lookup failed|unresolvable relay host name|mismatches client ip|unverif(?:y|i)able sending ips?|no reverse dns|generic dns|forward dns entry does not point to the sending ip/;

const NOT_COMPLIANT_RFC =
  /not rfc ?\d* ?compliant|rfcmessagenoncompliant|rfc ?5322 section [0-9.]+ compliant|rfc ?5322 (?:compliant|specifications)|(?:messages with )?multiple addresses in (?:the )?from:? ?(?:header)?|messages with multiple addresses|missing a valid (?:address in the from|message-id)|having no from: header|encoded-word syntax is not permitted|message is malformed|(?:duplicate|multiple) (?:subject|from|date|message-id|to|sender) headers/;

/** The text speaks of our sender address. */
const SENDER_NAMED = /\bsender\b|\bmail from\b|envelope from/;

/** The receiving side refused the sender (envelope from, the sender's domain, a group's rules). */
const REJECTED =
  /sender (?:e-?mail |mail )?(?:address |domain )?(?:was |is |has been )?(?:rejected|refused|denied|blacklisted|invalid|unknown|not (?:allowed|accepted|permitted|pre-approved|verified|authenticated)|not in (?:the |my )?allowed[- ]senders?|is in my black ?list|verify failed|verification failed|is spammer)|(?:domain of sender|sender domain) (?:address )?(?:[^ ]{1,80} )?(?:does not exist|is empty|must exist|not found|invalid)|invalid sender|from: domain is invalid|null sender is not allowed|empty envelope senders?|bogus mail from|mail from not owned|unroutable sender|address has been blacklisted|senderfilterconfig|\bbatv\b|(?:not|isn't) on the recipient's list of senders|domain of sender address|emetteur invalide|fully qualified (?:e-?mail )?address required|access to submit messages|does not accept mail from|envelope blocked|different address or alias using|returned mail not accepted here|administrative prohibition|not (?:allowed|permitted|authorized) to post|access denied \(in reply to mail from|no third-party dsns|unsigned dsn|rejected by batv|sending this from a different address|you are sending to\/from an address|email address is not verified|not a registered gateway user|spam reporting address|mail sending denied|blocked senders?\b|will be permanently deferred|spam abuse detected|the group you tried to contact|groups\.google\.com|purported responsible address/;

const HOST_UNKNOWN =
  /(?:host|domain)(?: name)? (?:is )?(?:unknown|not found|(?:does|did) not exist|doesn't exist|must exist)|domain (?:is )?(?:not reachable|unreachable)|unknown (?:host|domain)|no such domain|host or domain name not found|name or service not known|unrout(?:e)?able address|illegal host\/domain|domain name not found|mail domain mentioned in email address is unknown|account or domain may not exist|\b553 [^ ]{1,80} does not exist|ドメインが(?:存在しません|見つかりません)/;

/** Our message was taken for spam (content, not the sending IP). */
const SPAM_DETECTED =
  /\bspam(?:s)?\b(?! ?(?:haus|cop|trap))|\bube\b|unsolicited|bulk (?:e-?mail|mail|advertising)|spam-?like|content (?:filter )?reject|message content rejected|rejecting (?:banned|mail) content|mail content denied|spamassassin|content filter agent|quarantined|spambouncer|mass mailer|blacklisted url|uribl|mail rejete\. mail rejected\. [0-9a-z_]+506|appears to be (?:unsolicited|junk)|suspicious (?:content|message)/;

const TOO_MANY_CONN =
  /max(?:imum)? messages? per connection|too many (?:connections|concurrent|smtp sessions|sessions|errors from your ip|recipients(?! this hour))|connection (?:rate )?limit|maximum connection|per-domain connection limit|trop de connexions|frequency limited|max emails per hour|daily message quota exceeded|maximum sending rate exceeded|numerous attempts to deliver|resolver\.adr\.reciplimit/;

const SPEEDING =
  /rate[- ]?limit|try again slower|too quickly|excessive volume|(?:relay|sending) limit exceeded|sending quota exceeded|sending too fast|at a rate that prevents|too many (?:messages|e-?mails|mails)|sent to too many recipients|(?:message|sending) rate (?:exceeded|too high)/;

const BAD_REPUTATION = /reputation|unexpected volume or user complaints|\[tss04\]/;

/** The sending IP or host is refused: blocklists, dynamic IPs, our HELO name, our whole network. */
const BLOCKED_IP =
  /\b(?:rbl|dnsbl|rbls|blacklist(?:ed)?|black list|blocklist(?:ed)?|block list|denylist(?:ed)?)\b|spamhaus|spamcop|barracudacentral|abuseat|\bsorbs\b|uceprotect|blocked using|(?:your|sender|sending|client|the|source|remote) ip(?: address)?\b[^.;]{0,60}\b(?:blocked|rejected|banned|blacklisted|listed|not allowed|refused|denied)|(?:banned|bad) (?:sending |sender )?ip|access from ip address|dynamic ips?\b|dynamic\/zombied|client host [^ ]{0,80} ?(?:rejected|blocked|refused)|helo command rejected|my name was rejected|not currently accepting mail from your ip|open proxy|connection refused by|refused to talk to me|service (?:refused|not available, closing transmission channel)|after initial connection|you are not allowed to connect|\bgo away\b|not accepting connections|part of their network is on our block list|use the smtp server of your isp|connection (?:dropped|reset by peer|was dropped)|mail server at [^ ]{1,80} is blocked|was blocked by|(?:you are|currently) sending spam|too many spams|too many unwanted messages|confirm this mail server|your server requires confirmation|no access from mail server|hosts with dynamic ip|bad helo|access denied, rejected by recipient|(?:does not|doesn't) accept (?:e-?mail|mail) over ipv6|banned sender|access denied, please try again later|not in (?:the )?(?:whitelist|allowlist)|(?:helo|ehlo)(?:\/ehlo)? argument|invalid (?:helo|ehlo)|unusual rate of unsolicited mail|not allowed to send mail from|invalid ip for sending|forbidden by your ip|looks suspiciously like spammer|(?:refused|blocked) - see http|ip[^.;]{0,40}listed as abusive/;

const BLOCKED_WORD = /\bblock(?:ed|ing)?\b|\bbanned\b/;

const POLICY_VIOLATION =
  /\bpolic(?:y|ies)\b|illegal attachment|protocol violation|header error|headers? (?:are|is) not accepted|closed mailing list|members-only list|not subscribed to this group|organizational settings|low priority|not accepting mail with|messages containing images|captcha|content presents a potential|host network not allowed/;

const VIRUS_DETECTED = /\bvirus|malware|infected|potentially executable attachment|used by recent viruses/;

const SECURITY_ERROR =
  /authentication (?:required|failure|failed|credentials invalid|turned on)|incorrect authentication|smtp authentication|turn on smtp auth|not authorized to (?:send|perform)|unauthenticated senders? not allowed|tls required|encryption (?:required|needed)|requiretls|verification failure|dead domain|access denied|not subscribed to ses|delivery not authorized|you don'?t authenticate/;

const SYSTEM_ERROR =
  /system (?:error|config(?:uration)? error)|internal (?:system |server )?error|configuration error|local error in processing|temporary local problem|server is misconfigured|queue file write error|would create a mail loop|loops back to myself|loop was found|forwarding loop broken|interrupted system call|service (?:currently )?unavailable|transaction failed|duplicated message-id|timeout waiting for input|can't create user output file|could not load drd|no mdb|error while being processed|temporary system problem|unable to process (?:connection|command|an email|the message)|server busy|suspiciousremoteservererror|mailbox (?:database|server) (?:error|unavailable)|unable to contact (?:the )?(?:ldap|directory) server|insufficient permission/;

const NETWORK_ERROR =
  /network (?:error|is unreachable|unreachable)|(?:host|server) (?:is )?unreachable|forwarding loop|no route to host|host is unreachable|could not connect and send|name service error|host name lookup failure|host not found, try again|malformed (?:or unexpected )?name server reply|dns (?:error|lookup fail|records for the destination)|too many hops|hop count exceeded|routing loop|mail forwarding loop|mail loop detected|message looping|unable to resolve route|unrouteable mail domain|connection refused(?! by)|(?:unable|wasn't able|not able) to establish (?:an |a )?(?:smtp )?connection/;

const EXPIRED =
  /\bexpired\b|timed? ?out|retry time|in the queue too long|too long in (?:the )?queue|giving up|could not (?:be )?deliver(?:ed)? for (?:more than|the last)|not delivered within|has been delayed|delivery attempts will continue|failing for a long time|not been collected|not reachable within|after multiple retries|server did not respond|did not accept our requests to connect|could not find a gateway|failed to deliver to domain|retries exceeded|zustellung (?:fehlgeschlagen|verzögert)|remaining in queue/;

const CONTENT_ERROR =
  /8-?bit data|invalid mime|mime (?:complexity|header)|improperly[- ]formatted|unnecessary base64|too many received|header size exceeds|message header size|media error|content error|malformed (?:message|header)/;

const SYSTEM_FULL = /mail system full|system (?:storage|disk) (?:is )?full|insufficient system storage/;

const NOT_ACCEPT =
  /null ?mx|(?:does|do) not accept (?:any )?mail|doesn't receive (?:e-?mail|mail)|(?:host|domain|server|system) (?:is )?not accepting (?:network )?(?:messages|mail)|no smtp service|no route for current request|smtp protocol returned a permanent error|host not found \(authoritative\)|no mx record found for domain|name server: \.: host not found/;

const MAILER_ERROR =
  /mailer error|procmail|maildrop|command (?:failed|died|output)|pipe to \||x-unix; ?\d+|\bexit (?:status )?\d+|delivery to (?:file|program) failed/;

const SYNTAX_ERROR =
  /syntax error|command (?:unrecognized|not recognized|not implemented)|parameter(?:s)? not implemented|bad sequence of commands|unrecognized command/;

/** Statuses that decide at once when the report gives them. */
const FIRST_PASS_STATUS: ReadonlySet<BounceReason> = new Set([
  'mailbox_full',
  'message_too_big',
  'exceed_limit',
  'has_moved',
  'auth_failure',
]);

/**
 * What "user unknown" means when neither the status nor the SMTP stage says more. Sisimai's per-MTA
 * parsers split on it (`filtered` for some MTAs, `user_unknown` for others, same words); we take the
 * words at face value: the server says the address does not exist (docs/bounce-reasons.md).
 */
const UNKNOWN_WITHOUT_CONTEXT: BounceReason = 'user_unknown';

/** Statuses with which "user unknown" is the recipient's filter: security/policy, mailbox status. */
const FILTER_STATUS = /^[45]\.(?:7\.\d+|2\.[02-9]|1\.4)$/;
/** At MAIL FROM, words of non-existence are about our sender. */
const SENDER_MISSING = /does not exist|unknown|invalid/;
/** Transient DNS trouble is not an unknown host. */
const TRANSIENT_DNS = /dns error|not found, try again/;
const WHITESPACE = /\s+/g;
const SPACES = / {2,}/g;
const STATUS_TOKEN = /([245])\.(\d{1,3})\.(\d{1,3})/;
const DOCOMO_UNKNOWN = /unknown user|user unknown/;

/** Our account's or IP's sending quota (Amazon SES). */
const SENDER_QUOTA = /throttling failure|(?:daily|hourly|sending) (?:message |sending )?quota/;

/** Our sending rate or volume limits (Microsoft 365, Google Workspace). */
const SENDER_LIMIT =
  /submission quota exceeded|exceeded permitted limits|tenant has exceeded threshold|message receive limit|thread limit exceeded|reached your daily limit|(?:daily|hourly) (?:user )?(?:sending|relay|smtp relay) limit/;

/** The receiving side requires TLS that we did not use. */
const TLS_REQUIRED =
  /\btls (?:required|wasn't used|was not used)|(?:use|requires?) tls\b|tls\/ssl during smtp|encryption (?:is )?required|requires? encryption|starttls (?:is )?required|must support tls/;

/** A local delivery agent's own failure (procmail, a pipe), whatever words follow. */
const MAILER_PREFIX = /\b(?:procmail|maildrop):|command output:|x-unix;|^pipe to \||operating system error/;

/** The domain publishes a null MX (RFC 7505) or has no mail exchanger at all. */
const NULL_MX =
  /null ?mx|does not accept mail \(nullmx\)|(?:host|domain)(?:\/domain)? does not accept (?:any )?mail|doesn't receive (?:e-?mail|mail)|no smtp service|(?:couldn't|could not|cannot) find a mail exchanger|name server: \.: host not found/;

/** With a 5.1.x status, text saying it is about something else than the address. */
const OTHER_THAN_UNKNOWN: readonly RegExp[] = [
  REJECTED,
  BLOCKED_IP,
  FILTERED,
  SPEEDING,
  TOO_MANY_CONN,
  NOT_ACCEPT,
  BAD_REPUTATION,
  REQUIRE_PTR,
];

const FIRST_PASS: readonly Rule[] = [
  [
    'system_full',
    /mail system full|system (?:storage|disk) (?:is )?full|insufficient (?:system )?(?:disk )?(?:space|storage)/,
  ],
  ['mailbox_full', MAILBOX_FULL],
  ['message_too_big', MESG_TOO_BIG],
  ['suspended', SUSPENDED],
  ['has_moved', HAS_MOVED],
  ['no_relaying', NO_RELAYING],
  ['auth_failure', AUTH_FAILURE],
];

const SECOND_PASS: readonly Rule[] = [
  ['content_error', CONTENT_ERROR],
  ['spam_detected', SPAM_DETECTED],
  ['policy_violation', POLICY_VIOLATION],
  ['virus_detected', VIRUS_DETECTED],
  ['bad_reputation', BAD_REPUTATION],
  ['security_error', SECURITY_ERROR],
  ['system_error', SYSTEM_ERROR],
  ['network_error', NETWORK_ERROR],
  ['speeding', SPEEDING],
  ['suspended', SUSPENDED],
  ['expired', EXPIRED],
  ['system_full', SYSTEM_FULL],
  ['not_accept', NOT_ACCEPT],
  ['mailer_error', MAILER_ERROR],
  ['syntax_error', SYNTAX_ERROR],
  ['blocked', BLOCKED_WORD],
];

const COMMAND_STAGES: Readonly<Record<SmtpCommand, Exclude<Stage, null>>> = {
  CONN: 'connect',
  HELO: 'helo',
  MAIL: 'mail',
  RCPT: 'rcpt',
  DATA: 'data',
};

const STAGE_PATTERNS: ReadonlyArray<readonly [Exclude<Stage, null>, RegExp]> = [
  ['rcpt', /\brcpt to\b|\brcpt command|after rcpt|\[rcpt_to\]|in reply to rcpt/],
  ['data', />>> data\b|end of data|\bdata command|after data|final data|message body|after end of data/],
  ['mail', /\bmail from\b|in reply to mail command/],
  ['helo', /\b(?:ehlo|helo)\b/],
  ['connect', /initial connection|refused to talk to me|greeting|banner/],
];

const STATUS_IN_TEXT = /(?:^|[^0-9a-z.])([245])\.(\d{1,3})\.(\d{1,3})(?![0-9.]\d)/g;
const REPLY_CODE_IN_TEXT = /(?:^|[^0-9.-])([45]\d\d)(?:[ ,;:-]|$)/;
const CONTINUATION =
  /(?:^|\s)[245]\d\d(?:-(?:[245]\.\d{1,3}\.\d{1,3}(?=\s))?|\s[245]\.\d{1,3}\.\d{1,3}(?=\s))/g;

/** Gmail's older bounces end with "(state N)", the step of its SMTP client that failed. */
const GMAIL_STATE = /\(state (\d{1,2})\)/;
const GMAIL_STATE_REASONS: Readonly<Record<string, BounceReason>> = {
  '6': 'system_error', // the remote server does not support TLS
  '8': 'system_error', // SMTP AUTH failed with the remote server
  '9': 'system_error', // TLS certificate problem
  '12': 'no_relaying', // the remote server does not support authenticated relay
  '15': 'filtered', // refused after DATA
  '17': 'filtered',
  '18': 'filtered',
};
const GMAIL_STATE_STAGES: Readonly<Record<string, Exclude<Stage, null>>> = { '13': 'helo', '14': 'rcpt' };

export function decideReason(input: ReasonInput): { reason: BounceReason; hard: boolean } {
  const reason = input.hint ?? pick(input);
  return { reason, hard: HARD_REASONS.has(reason) };
}

function pick(input: ReasonInput): BounceReason {
  const raw = (input.diagnostic ?? '')
    .slice(0, MAX_DIAGNOSTIC_CHARS)
    .toLowerCase()
    .replace(WHITESPACE, ' ')
    .trim();
  const text = withoutContinuations(raw);
  const status = chooseStatus(normaliseStatus(input.status), statusInText(raw));
  const code = input.smtpCode ?? replyCodeInText(raw);
  const statusReason = status ? statusMeaning(status) : null;
  const gmailState = GMAIL_STATE.exec(text)?.[1];
  const stage =
    (gmailState && GMAIL_STATE_STAGES[gmailState]) ||
    (input.command ? COMMAND_STAGES[input.command] : stageOf(text));
  const action = (input.action ?? '').toLowerCase();

  const provider =
    (gmailState && GMAIL_STATE_REASONS[gmailState]) ||
    providerReason(text) ||
    providerStageReason(text, status, stage);
  if (provider) return provider;
  const first = firstPass(text, status, statusReason, stage, code);
  if (first) return first;
  const second = secondPass(text, status, statusReason, code, action);
  if (second) return second;
  if (action.startsWith('delayed') || action.startsWith('expired')) return 'expired';
  if (stage === 'helo' || stage === 'connect') return 'blocked';
  return text ? 'on_hold' : 'undefined';
}

/** Reasons that the text (or an exact status) decides whatever else the status says. */
function firstPass(
  text: string,
  status: string | null,
  statusReason: BounceReason | null,
  stage: Stage,
  code: number | null,
): BounceReason | null {
  // Our own sending quota or TLS, whatever status the provider chose for it (Microsoft: 5.2.2
  // "Submission quota exceeded"; Gmail: 4.7.29 for TLS, ARC's code).
  if (SENDER_QUOTA.test(text)) return 'too_many_connections';
  if (SENDER_LIMIT.test(text)) return 'speeding';
  if (TLS_REQUIRED.test(text)) return 'security_error';
  // A status that names one of these exactly is taken at its word (5.2.2 with "user unknown" is
  // still a full mailbox; 5.2.3 is the mailbox's own size limit, not the system's).
  if (statusReason && FIRST_PASS_STATUS.has(statusReason)) return statusReason;
  if (MAILER_PREFIX.test(text)) return 'mailer_error';
  if (NULL_MX.test(text)) return 'not_accept';
  for (const [reason, re] of FIRST_PASS) if (re.test(text)) return reason;
  if (code === 525) return 'suspended'; // RFC 4954: user account disabled

  // The address does not exist, or the recipient's filter pretends so.
  const pre = stage === 'connect' || stage === 'helo' || stage === 'mail';
  const saysUnknown = USER_UNKNOWN.test(text) && !DOMAIN_UNKNOWN.test(text);
  if (statusReason === 'rejected') return 'rejected'; // 5.1.7 / 5.1.8: our sender address
  if (
    SENDER_NAMED.test(text) &&
    REJECTED.test(text) &&
    !BAD_REPUTATION.test(text) &&
    !BLOCKED_IP.test(text)
  ) {
    return 'rejected'; // "sender address invalid" is about us, even though "address invalid" is in it
  }
  if (saysUnknown && !pre) {
    if (statusReason === 'user_unknown' || PROVIDER_UNKNOWN.test(text)) return 'user_unknown';
    if (stage === 'data') return 'filtered'; // accepted at RCPT, refused after the content
    if (stage === 'rcpt') return 'user_unknown';
    // A security/policy or mailbox-status code with "user unknown" is the recipient's filter.
    if (status && FILTER_STATUS.test(status)) return 'filtered';
    return status === null || status.endsWith('.0.0') ? UNKNOWN_WITHOUT_CONTEXT : 'user_unknown';
  }
  if (saysUnknown && stage === 'mail') return 'rejected';
  if (statusReason === 'user_unknown' && !pre && !OTHER_THAN_UNKNOWN.some((re) => re.test(text))) {
    return 'user_unknown';
  }
  if (statusReason === 'filtered' && FILTERED.test(text)) return 'filtered';
  if (!pre && FILTERED.test(text)) return 'filtered';
  if (statusReason === 'require_ptr' || REQUIRE_PTR.test(text)) return 'require_ptr';
  if (NOT_COMPLIANT_RFC.test(text)) return 'not_compliant_rfc';
  if (BAD_REPUTATION.test(text)) return 'bad_reputation';
  if (REJECTED.test(text)) return 'rejected';
  if (stage === 'mail' && (statusReason === 'user_unknown' || SENDER_MISSING.test(text))) {
    return 'rejected';
  }
  const transient = status?.startsWith('4.') || (code !== null && code >= 400 && code < 500);
  if (statusReason === 'host_unknown' && !NETWORK_ERROR.test(text)) return 'host_unknown';
  if (!transient && HOST_UNKNOWN.test(text) && !TRANSIENT_DNS.test(text)) return 'host_unknown';
  if (BLOCKED_IP.test(text)) return 'blocked';
  if (TOO_MANY_CONN.test(text)) return 'too_many_connections';
  if (SPEEDING.test(text)) return 'speeding';
  if (statusReason === 'spam_detected' || (!pre && SPAM_DETECTED.test(text))) return 'spam_detected';
  if (statusReason === 'user_unknown' && !pre) return 'user_unknown';
  if (statusReason === 'too_many_connections') return 'too_many_connections';
  if (statusReason === 'blocked') return 'blocked';
  return null;
}

/** The status's own meaning, unless it is vague; then the softer text patterns, then the class. */
function secondPass(
  text: string,
  status: string | null,
  statusReason: BounceReason | null,
  code: number | null,
  action: string,
): BounceReason | null {
  if (statusReason && !VAGUE_STATUS_REASONS.has(statusReason)) return statusReason;
  for (const [reason, re] of SECOND_PASS) if (re.test(text)) return reason;
  if (statusReason) return statusReason;
  if (status) {
    const subject = status.slice(2, 3);
    if (subject === '6') return 'content_error';
    if (subject === '7') return 'security_error';
  }
  if (code !== null) {
    if (code === 521 || code === 556) return 'not_accept'; // RFC 7504: the domain accepts no mail
    if (code >= 500 && code <= 507 && !(action.startsWith('delayed') || action.startsWith('expired'))) {
      return 'syntax_error';
    }
  }
  return null;
}

// ------------------------------------------------------------------------------------------------
// Providers' own error codes, as their postmaster pages document them. A code names the reason more
// precisely than the words around it.
// ------------------------------------------------------------------------------------------------

/** Spectrum / Charter: `AUP#In-1310` (spectrum.net "understanding email error codes"). */
const SPECTRUM_CODE = /aup#[a-z]*-?(\d{4})\b/;
const SPECTRUM_RANGES: ReadonlyArray<readonly [number, number, BounceReason]> = [
  [1000, 1000, 'blocked'], // IP blocked for suspicious activity
  [1010, 1080, 'rejected'], // the sending account is limited or blocked
  [1090, 1090, 'system_error'],
  [1100, 1150, 'blocked'], // the connecting IP's DNS
  [1160, 1190, 'policy_violation'], // against the domain's security policies
  [1200, 1250, 'blocked'], // Cloudmark CSI, Spamhaus
  [1260, 1260, 'network_error'], // IPv6 not processed
  [1300, 1490, 'too_many_connections'], // connection, message and recipient limits
  [1500, 1520, 'rejected'], // sending as another address or domain
  [1530, 1530, 'message_too_big'],
  [1540, 1550, 'too_many_connections'],
  [1560, 1560, 'policy_violation'], // too many invalid recipients
];

/** Cox: `AUP#CXBL` (cox.com "email error codes"). */
const COX_CODE = /aup#(cxbl|cdrbl|cxdns|ipbl\d+|cxthrt|cxmj|cxsndr|cxsmtp|cxcnct|cxmxrt|urlbl\d+)\b/;
const COX_REASONS: Readonly<Record<string, BounceReason>> = {
  cxbl: 'blocked',
  cdrbl: 'blocked',
  cxdns: 'blocked',
  cxthrt: 'security_error',
  cxmj: 'security_error',
  cxsndr: 'rejected',
  cxsmtp: 'rejected',
  cxcnct: 'too_many_connections',
  cxmxrt: 'too_many_connections',
};

/** GoDaddy: `IB607` (godaddy.com "what does my email bounceback mean"). */
const GODADDY_CODE = /\bib(\d{3})\b/;
const GODADDY_REASONS: Readonly<Record<string, BounceReason>> = {
  '007': 'too_many_connections',
  '101': 'expired',
  '103': 'blocked',
  '104': 'blocked',
  '105': 'blocked',
  '106': 'blocked',
  '108': 'require_ptr',
  '110': 'blocked',
  '111': 'blocked',
  '112': 'blocked',
  '113': 'blocked',
  '212': 'spam_detected',
  '401': 'security_error',
  '501': 'rejected',
  '502': 'rejected',
  '504': 'speeding',
  '506': 'rejected',
  '508': 'auth_failure',
  '510': 'too_many_connections',
  '607': 'speeding',
  '705': 'virus_detected',
};

/** Orange / La Poste: `OFR_416`, `LPN007_426` (the number after the underscore). */
const ORANGE_CODE = /\b(?:ofr|lpn|ouk)[0-9a-z]*_(\d{3})\b/;
const ORANGE_REASONS: Readonly<Record<string, BounceReason>> = {
  '101': 'blocked',
  '102': 'blocked',
  '103': 'blocked',
  '104': 'too_many_connections',
  '105': 'undefined',
  '107': 'undefined',
  '108': 'undefined',
  '109': 'undefined',
  '201': 'undefined',
  '305': 'security_error',
  '401': 'auth_failure',
  '402': 'security_error',
  '403': 'rejected',
  '405': 'rejected',
  '415': 'rejected',
  '416': 'user_unknown',
  '417': 'mailbox_full',
  '418': 'user_unknown',
  '420': 'suspended',
  '421': 'rejected',
  '423': 'undefined',
  '424': 'undefined',
  '426': 'suspended',
  '505': 'system_error',
  '506': 'spam_detected',
  '510': 'blocked',
  '513': 'undefined',
};

/** i.ua: `http://mail.i.ua/err/3/`. */
const IUA_CODE = /\.i\.ua\/err\/(\d{1,2})\b/;
const IUA_REASONS: Readonly<Record<string, BounceReason>> = {
  '1': 'no_relaying',
  '2': 'user_unknown',
  '3': 'suspended',
  '4': 'mailbox_full',
  '5': 'too_many_connections',
  '6': 'no_relaying',
  '7': 'blocked',
  '8': 'rejected',
  '9': 'blocked',
  '10': 'filtered',
};

/** Microsoft Exchange / Microsoft 365 resolver codes. */
const EXCHANGE_CODES: readonly Rule[] = [
  ['user_unknown', /resolver\.adr\.(?:recip(?:ient)?notfound|exrecipnotfound)/],
  ['filtered', /resolver\.rst\.notauthorized/],
  ['message_too_big', /resolver\.rst\.(?:recip)?sizelimit/],
  ['too_many_connections', /resolver\.adr\.reciplimit/],
];

/** au (KDDI): "550 : User unknown" without an address is the recipient's own filter. */
const KDDI_FILTER = /\b550 : user unknown/;

/**
 * NTT docomo's MX answers "unknown user" after DATA when the recipient refuses the sender's domain
 * (its "specified domain reception" setting): the sender is refused, not the address.
 */
const DOCOMO_MX = /\bmfsmax\.docomo\.ne\.jp\b/;

function providerReason(text: string): BounceReason | null {
  let m = SPECTRUM_CODE.exec(text);
  if (m) {
    const n = Number(m[1]);
    for (const [from, to, reason] of SPECTRUM_RANGES) if (n >= from && n <= to) return reason;
  }
  m = COX_CODE.exec(text);
  if (m) return COX_REASONS[m[1]] ?? (m[1].startsWith('urlbl') ? 'spam_detected' : 'blocked');
  m = GODADDY_CODE.exec(text);
  if (m && GODADDY_REASONS[m[1]]) return GODADDY_REASONS[m[1]];
  m = ORANGE_CODE.exec(text);
  if (m && ORANGE_REASONS[m[1]]) return ORANGE_REASONS[m[1]];
  m = IUA_CODE.exec(text);
  if (m && IUA_REASONS[m[1]]) return IUA_REASONS[m[1]];
  for (const [reason, re] of EXCHANGE_CODES) if (re.test(text)) return reason;
  if (KDDI_FILTER.test(text)) return 'filtered';
  return null;
}

/** Provider rules that need the SMTP stage too. */
function providerStageReason(text: string, status: string | null, stage: Stage): BounceReason | null {
  const vague = status === null || status.endsWith('.0.0');
  if (DOCOMO_MX.test(text) && stage === 'data' && vague && DOCOMO_UNKNOWN.test(text)) return 'rejected';
  return null;
}

/**
 * A multi-line SMTP reply folded into one line repeats its code on every line ("550-5.7.1 ... 550-5.7.1
 * ..."): the repeats are dropped so that phrases read across the fold. The first code stays.
 */
function withoutContinuations(text: string): string {
  let seen = false;
  return text
    .replace(CONTINUATION, (m) => {
      if (!seen) {
        seen = true;
        return m;
      }
      return ' ';
    })
    .replace(SPACES, ' ');
}

/** The report's status, unless it is vague (x.0.0, a 2.x.x) and the text names a precise one. */
function chooseStatus(given: string | null, inText: string | null): string | null {
  if (given && !given.startsWith('2.') && !given.endsWith('.0.0')) return given;
  if (inText && !inText.endsWith('.0.0')) return inText;
  return given && !given.startsWith('2.') ? given : inText;
}

/** `5.1.1` from `5.1.1`, `#5.1.1`, `5.1.1 (...)`; null for anything else. */
function normaliseStatus(status: string | null | undefined): string | null {
  if (!status) return null;
  const m = STATUS_TOKEN.exec(status);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : null;
}

/** The first specific enhanced status in the text (x.0.0 only when there is no other). */
function statusInText(text: string): string | null {
  let vague: string | null = null;
  for (const m of text.matchAll(STATUS_IN_TEXT)) {
    const s = `${m[1]}.${Number(m[2])}.${Number(m[3])}`;
    if (Number(m[2]) > 7 || m[1] === '2') continue;
    if (s.endsWith('.0.0')) vague ??= s;
    else return s;
  }
  return vague;
}

function replyCodeInText(text: string): number | null {
  const m = REPLY_CODE_IN_TEXT.exec(text);
  return m ? Number(m[1]) : null;
}

function statusMeaning(status: string): BounceReason | null {
  const [klass, subject, detail] = status.split('.');
  const key = `${subject}.${detail}`;
  if (klass === '2') return null;
  if (klass === '4' && key in TRANSIENT_STATUS_REASONS) return TRANSIENT_STATUS_REASONS[key];
  return STATUS_REASONS[key] ?? null;
}

function stageOf(text: string): Stage {
  for (const [stage, re] of STAGE_PATTERNS) if (re.test(text)) return stage;
  return null;
}
