/**
 * The tables decideReason (reason.ts) reads: enhanced-status meanings, the phrase families of each
 * reason, the two passes' rule lists, SMTP stages. Patterns only; the order of the checks is reason.ts's.
 */
import type { BounceReason, SmtpCommand } from './types.js';

export type Rule = readonly [BounceReason, RegExp];

/** Where in the SMTP conversation the refusal came, when the text says so. */
export type Stage = 'connect' | 'helo' | 'mail' | 'rcpt' | 'data' | null;

// ------------------------------------------------------------------------------------------------
// Enhanced status codes (RFC 3463, RFC 5248 registry; RFC 7372, RFC 7505, RFC 8689...). Only codes
// whose meaning is one reason; vague ones (x.0.0, x.3.0, x.4.0, x.5.0, x.7.0) are left to the text.
// ------------------------------------------------------------------------------------------------
export const STATUS_REASONS: Readonly<Record<string, BounceReason>> = {
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
export const TRANSIENT_STATUS_REASONS: Readonly<Record<string, BounceReason | null>> = {
  '3.0': null,
  '4.4': 'network_error', // 4.4.4 Unable to route, for now
  '7.1': 'blocked', // 4.7.1 Delivery not authorized: greylisting, IP reputation
  '7.2': 'blocked',
};

/**
 * Status meanings that are too vague to beat the text: when the status says only this, the text
 * patterns of the second pass are tried first (sisimai's "retry" set).
 */
export const VAGUE_STATUS_REASONS: ReadonlySet<BounceReason> = new Set([
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

export const MAILBOX_FULL =
  /mail ?box (?:is |was )?(?:full|over ?quota)|full mailbox|mail ?folder is full|\bover (?:the )?(?:allowed |disk |storage )?quota|\bquota (?:exceeded|violation|usage exceeded|full)|(?:disk|diskspace|mail|mailbox|maildir|storage|user ?disk|domain ?disk) quota|exceed(?:ed|s|ing)? (?:the |its |their |his |her |your )?(?:mailbox |storage |disk |email )?(?:quota|storage allocation)|mailbox (?:has )?exceeded|exceeded (?:the )?local limit|not enough (?:disk |storage )?space|(?:does not|doesn't) have enough (?:disk |storage )?space|space has been used up|too many messages (?:in|on) (?:the )?(?:mailbox|server)|too much mail data|mailbox would exceed|mailbox size limit exceeded|mail file size exceeds|bo[iî]te (?:aux lettres |du destinataire |de r[eé]ception )?pleine|(?:postfach|mailbox) (?:ist )?voll|speicherplatz|quota (?:überschritten|d[eé]pass[eé]|superata|excedida|superada)|buz[oó]n (?:lleno|completo)|casella (?:di posta )?piena|caixa (?:postal |de correio )?(?:cheia|lotada)|ящик переполнен|(?:邮箱|信箱)(?:已满|容量不足)|メールボックス(?:が|の容量が)(?:いっぱい|一杯|満杯)|容量(?:を)?超過|容量がいっぱい/;

export const MESG_TOO_BIG =
  /message (?:is |was )?too (?:big|large)|message file too big|(?:message|mail|email) size (?:exceeds|limit|too)|\bsize limit|exceed(?:s|ed)? (?:the )?(?:fixed |allowed |maximum |max )*(?:inbound )?(?:message |mail )?size|max(?:imum)? (?:inbound )?(?:message|e-?mail) size|message length exceeds|line limit exceeded|taille limite|resolver\.rst\.recipsizelimit|nachricht (?:ist )?zu gro/;

export const SUSPENDED =
  /(?<!sender |sending )(?:account|mailbox|user|address|recipient)(?: [^ ]{1,64})? (?:is |has been |was )?(?:currently |temporarily |temporary )?(?:disabled|suspended|deactivated|inactive|frozen|locked|terminated|discontinued)|(?:inactive|disabled|suspended|deactivated|frozen) (?:account|mailbox|user)|(?:is currently|has been) (?:suspended|locked|disabled)|temporary locked|tried to reach is (?:disabled|inactive)|recipient account is blocked| is no longer valid\.|banned recipient|mailbox cannot be accessed|user or domain is disabled|compte du destinataire est bloque|boite du destinataire archivee|archived recipient|recipient suspend|no longer accepts mail|mailbox unavailable or access denied|konto (?:ist )?(?:gesperrt|deaktiviert)|compte (?:d[eé]sactiv[eé]|suspendu|bloqu[eé])|cuenta (?:desactivada|suspendida|bloqueada)|conta (?:desativada|suspensa|bloqueada)/;

export const HAS_MOVED =
  /has been replaced by|mailbox has moved|address has moved|recipient no longer on server/;

export const NO_RELAYING =
  /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited|not allowed|refused)|(?:unable|not (?:permitted|allowed|configured)) to relay|not an open relay|as a relay|insecure mail relay|relaying mail to|\bnot a gateway|not local host|we do(?:n't| not) handle mail for|that domain isn't in my list of allowed rcpthosts?|\bno relaying|requires authentication when attempting to send to a non-local|email address is not verified|identities failed the check|mail relay denied|credentials for relay|not authorized to send (?:e-?mail )?directly/;

export const AUTH_FAILURE =
  /\b(?:spf|dkim|dmarc)\b|sender policy framework|authentication checks? (?:failed|failure)|does not meet the required authentication level|unauthenticated (?:e-?mail|message)s? from|not (?:a )?designated (?:as )?permitted sender|not allowed to send mail\. .{0,40}_401|(?:fails?|failed) to pass authentication|does not have authentication information/;

/** Words saying the recipient address does not exist. */
export const USER_UNKNOWN =
  /(?:user|recipient|mailbox|address|addressee|account|local[- ]part|e-?mail account)(?: name)?(?: (?!domain|sender|server|host)[<(]?[^ ]{1,80}[>)]?)? (?:is )?(?:unknown|not (?:found|known|exist|listed|valid|a valid|local|active|ok)|(?:does|did) not exist|doesn't exist|could not be found|couldn't be found|invalid|no longer valid|unavailable)|(?:unknown|non-?existent|no such) (?:user|recipient|mailbox|e-?mail address|local[- ]part|addressee|person|account|destination mailbox|mail ?box|virtual user|rcpt)|(?:invalid|bad|not a valid|not a known) (?:user|recipient|mailbox|address|e-?mail address|local[- ]part|addressee|account|destination mailbox|rcpt)|no valid recipients(?: for this mm|, bye)|(?:recipient|user) [^ ]{1,80} was not found in|destination server rejected recipients|recipient address rejected\. |recipient refuses to accept your mail|the following recipients was undeliverable|spectator does not exist|<[^ <>]{1,200}@[^ <>]{1,200}> not found|\bno [^ ]{1,80} in name directory|rcpt <[^ <>]{1,200}> does not exist|no such address|(?:address|mailbox) not present|not an active address|destination addresses were unknown|not a local address|can't accept user|email name is not found|(?:wrong|invalid) or no longer valid|recipient is not accepted|envelope recipient has been denied|missing home directory|that domain or user isn't in my list of allowed rcpthosts|resolver\.adr\.recipient ?notfound|\bno (?:account|mailbox|mail box) (?:by that name|here|found|available)|no one at this address|address (?:not found|unknown|does not exist|couldn't be found)|recipient address rejected: (?:user|invalid|unknown|access denied|userunknown)|the email account that you tried to reach does not exist|resolver\.adr\.(?:recip(?:ient)?notfound|exrecipnotfound)|doesn't have a [^ ]{1,40} account|not listed in (?:domino directory|public name & address book)|invalid final delivery userid|\bbad ?rcpt ?to\b|\bbadrecipientto\b|not in my validrcptto|does not exist(?: here| on this system)?\.|ce destinataire n'existe pas|utilisateur (?:inconnu|introuvable)|destinataire (?:inconnu|introuvable|invalide)|adresse inconnue|(?:adresse|empfänger|benutzer|postfach) (?:unbekannt|existiert nicht|nicht gefunden)|usuario (?:desconocido|inexistente|no existe)|destinatario (?:desconocido|sconosciuto|inesistente|no existe)|utente (?:sconosciuto|inesistente)|usu[aá]rio (?:desconhecido|inexistente|n[aã]o existe)|destinat[aá]rio desconhecido|пользовател[ья] не (?:найден|существует)|(?:адрес|адресат|получатель) не (?:найден|существует)|нет такого пользователя|(?:用户|收件人|地址|帐户|账户)不存在|宛先不明|unbekannte?r? (?:empfänger|benutzer)|empfänger(?:adresse)? (?:unbekannt|existiert nicht)|benutzer (?:unbekannt|existiert nicht)|no existe|usuario desconocido|nessun utente|存在しない(?:ユーザ|アドレス|宛先)|宛先(?:が|の)(?:見つかりません|不明)|ユーザ(?:ー)?(?:が|は)存在しません/;

/** The words say the *domain* is unknown (which "address is unknown" would otherwise catch). */
export const DOMAIN_UNKNOWN =
  /unknown domain|domain (?:name )?(?:not found|unknown|does not exist)|no such domain|mail domain mentioned/;

/** Big providers' own words for a missing account: never a filter's disguise, whatever the stage. */
export const PROVIDER_UNKNOWN =
  /the email account that you tried to reach does not exist|doesn't have a [^ ]{1,40} account|no such user here|recipient not found by smtp address lookup|recipient address rejected: access denied/;

/** The recipient's own filter refused the message (sisimai: filtered). */
export const FILTERED =
  /cannot route mail to user|message filtered|user refuses to receive|only accept(?:s|ing) mail from|refused due to recipient preferences|message rejected due to user rules|\buser reject|you have been blocked by the recipient|is not accepting any mail|resolver\.rst\.notauthorized|has restricted sms e-mail|\bbounced address|this account is protected by|due to extended inactivity|refuse(?:s|d)? to receive (?:mail|e-?mail|this)|recipient (?:has )?(?:rejected|blocked|refused) (?:your|this|the sender)/;

export const REQUIRE_PTR =
  /reverse (?:dns|lookup|dns lookup)|\bptr\b|\brdns\b|cannot find your (?:reverse )?hostname|ip name lookup failed|unresolvable relay host name|mismatches client ip|unverif(?:y|i)able sending ips?|no reverse dns|generic dns|forward dns entry does not point to the sending ip/;

export const NOT_COMPLIANT_RFC =
  /not rfc ?\d* ?compliant|rfcmessagenoncompliant|rfc ?5322 section [0-9.]+ compliant|rfc ?5322 (?:compliant|specifications)|(?:messages with )?multiple addresses in (?:the )?from:? ?(?:header)?|messages with multiple addresses|missing a valid (?:address in the from|message-id)|having no from: header|encoded-word syntax is not permitted|message is malformed|(?:duplicate|multiple) (?:subject|from|date|message-id|to|sender) headers/;

/** The text speaks of our sender address. */
export const SENDER_NAMED = /\bsender\b|\bmail from\b|envelope from/;

/** The receiving side refused the sender (envelope from, the sender's domain, a group's rules). */
export const REJECTED =
  /sender (?:e-?mail |mail )?(?:address |domain )?(?:was |is |has been )?(?:rejected|refused|denied|blacklisted|invalid|unknown|not (?:allowed|accepted|permitted|pre-approved|verified|authenticated)|not in (?:the |my )?allowed[- ]senders?|is in my black ?list|verify failed|verification failed|is spammer)|(?:domain of sender|sender domain) (?:address )?(?:[^ ]{1,80} )?(?:does not exist|is empty|must exist|not found|invalid)|invalid sender|from: domain is invalid|null sender is not allowed|empty envelope senders?|bogus mail from|mail from not owned|unroutable sender|address has been blacklisted|senderfilterconfig|\bbatv\b|(?:not|isn't) on the recipient's list of senders|domain of sender address|emetteur invalide|fully qualified (?:e-?mail )?address required|access to submit messages|does not accept mail from|envelope blocked|different address or alias using|returned mail not accepted here|administrative prohibition|not (?:allowed|permitted|authorized) to post|(?:are|is) not (?:a )?member|not member article|reject mail from|reject spammers|header may cause mail loop|access denied \(in reply to mail from|no third-party dsns|unsigned dsn|rejected by batv|sending this from a different address|you are sending to\/from an address|email address is not verified|not a registered gateway user|spam reporting address|mail sending denied|blocked senders?\b|will be permanently deferred|spam abuse detected|the group you tried to contact|groups\.google\.com|purported responsible address/;

export const HOST_UNKNOWN =
  /(?:host|domain)(?: name)? (?:is )?(?:unknown|not found|(?:does|did) not exist|doesn't exist|must exist)|domain (?:is )?(?:not reachable|unreachable)|unknown (?:host|domain)|no such domain|host or domain name not found|name or service not known|\bhost unreachable|all relevant mx records point to non-existent hosts|all host address lookups failed permanently|unrout(?:e)?able address|illegal host\/domain|domain name not found|mail domain mentioned in email address is unknown|account or domain may not exist|\b553 [^ ]{1,80} does not exist|ドメインが(?:存在しません|見つかりません)/;

/** Our message was taken for spam (content, not the sending IP). */
export const SPAM_DETECTED =
  /\bspam(?:s)?\b(?! ?(?:haus|cop|trap))|\bube\b|unsolicited|bulk (?:e-?mail|mail|advertising)|spam-?like|content (?:filter )?reject|message content rejected|rejecting (?:banned|mail) content|mail content denied|spamassassin|content filter agent|quarantined|spambouncer|mass mailer|blacklisted url|uribl|mail rejete\. mail rejected\. [0-9a-z_]+506|appears to be (?:unsolicited|junk)|suspicious (?:content|message)/;

export const TOO_MANY_CONN =
  /max(?:imum)? messages? per connection|too many (?:connections|concurrent|smtp sessions|sessions|errors from your ip|recipients(?! this hour))|connection (?:rate )?limit|maximum connection|per-domain connection limit|trop de connexions|frequency limited|max emails per hour|daily message quota exceeded|maximum sending rate exceeded|numerous attempts to deliver|resolver\.adr\.reciplimit/;

export const SPEEDING =
  /rate[- ]?limit|try again slower|too quickly|excessive volume|(?:relay|sending) limit exceeded|sending quota exceeded|sending too fast|at a rate that prevents|too many (?:messages|e-?mails|mails)|sent to too many recipients|(?:message|sending) rate (?:exceeded|too high)/;

export const BAD_REPUTATION = /reputation|unexpected volume or user complaints|\[tss04\]/;

/** The sending IP or host is refused: blocklists, dynamic IPs, our HELO name, our whole network. */
export const BLOCKED_IP =
  /\b(?:rbl|dnsbl|rbls|blacklist(?:ed)?|black list|blocklist(?:ed)?|block list|denylist(?:ed)?)\b|spamhaus|spamcop|barracudacentral|abuseat|\bsorbs\b|uceprotect|blocked using|(?:your|sender|sending|client|the|source|remote) ip(?: address)?\b[^.;]{0,60}\b(?:blocked|rejected|banned|blacklisted|listed|not allowed|refused|denied)|(?:banned|bad) (?:sending |sender )?ip|access from ip address|dynamic ips?\b|dynamic\/zombied|client host [^ ]{0,80} ?(?:rejected|blocked|refused)|helo command rejected|my name was rejected|not currently accepting mail from your ip|open proxy|connection refused by|refused to talk to me|service (?:refused|not available, closing transmission channel)|after initial connection|you are not allowed to connect|\bgo away\b|not accepting connections|part of their network is on our block list|use the smtp server of your isp|connection (?:dropped|reset by peer|was dropped)|mail server at [^ ]{1,80} is blocked|was blocked by|(?:you are|currently) sending spam|too many spams|too many unwanted messages|confirm this mail server|your server requires confirmation|no access from mail server|hosts with dynamic ip|bad helo|access denied, rejected by recipient|(?:does not|doesn't) accept (?:e-?mail|mail) over ipv6|banned sender|access denied, please try again later|not in (?:the )?(?:whitelist|allowlist)|(?:helo|ehlo)(?:\/ehlo)? argument|invalid (?:helo|ehlo)|unusual rate of unsolicited mail|not allowed to send mail from|invalid ip for sending|forbidden by your ip|looks suspiciously like spammer|(?:refused|blocked) - see http|ip[^.;]{0,40}listed as abusive/;

export const BLOCKED_WORD = /\bblock(?:ed|ing)?\b|\bbanned\b/;

export const POLICY_VIOLATION =
  /\bpolic(?:y|ies)\b|illegal attachment|protocol violation|header error|headers? (?:are|is) not accepted|closed mailing list|members-only list|not subscribed to this group|organizational settings|low priority|not accepting mail with|messages containing images|captcha|content presents a potential|host network not allowed/;

export const VIRUS_DETECTED =
  /\bvirus|malware|infected|potentially executable attachment|used by recent viruses/;

export const SECURITY_ERROR =
  /security alert|authentication (?:required|failure|failed|credentials invalid|turned on)|incorrect authentication|smtp authentication|turn on smtp auth|not authorized to (?:send|perform)|unauthenticated senders? not allowed|tls required|encryption (?:required|needed)|requiretls|verification failure|dead domain|access denied|not subscribed to ses|delivery not authorized|you don'?t authenticate/;

export const SYSTEM_ERROR =
  /several matches found in domino directory|detected a loop condition|loop back warning|system (?:error|config(?:uration)? error)|internal (?:system |server )?error|configuration error|local error in processing|temporary local problem|server is misconfigured|queue file write error|would create a mail loop|loops back to myself|loop was found|forwarding loop broken|interrupted system call|service (?:currently )?unavailable|transaction failed|duplicated message-id|timeout waiting for input|can't create user output file|could not load drd|no mdb|error while being processed|temporary system problem|unable to process (?:connection|command|an email|the message)|server busy|suspiciousremoteservererror|mailbox (?:database|server) (?:error|unavailable)|unable to contact (?:the )?(?:ldap|directory) server|insufficient permission/;

export const NETWORK_ERROR =
  /network (?:error|is unreachable|unreachable)|(?:host|server) (?:is )?unreachable|forwarding loop|no route to host|host is unreachable|could not connect and send|name service error|host name lookup failure|host not found, try again|malformed (?:or unexpected )?name server reply|dns (?:error|lookup fail|records for the destination)|too many hops|hop count exceeded|exceeded maximum hop count|routing loop|mail forwarding loop|mail loop detected|message looping|unable to resolve route|unrouteable mail domain|connection refused(?! by)|(?:unable|wasn't able|not able) to establish (?:an |a )?(?:smtp )?connection/;

export const EXPIRED =
  /host not reachable|\bexpired\b|timed? ?out|retry time|in the queue too long|too long in (?:the )?queue|giving up|could not (?:be )?deliver(?:ed)? for (?:more than|the last)|not delivered within|has been delayed|delivery attempts will continue|failing for a long time|not been collected|not reachable within|after multiple retries|server did not respond|did not accept our requests to connect|could not find a gateway|failed to deliver to domain|retries exceeded|zustellung (?:fehlgeschlagen|verzögert)|remaining in queue/;

export const CONTENT_ERROR =
  /8-?bit data|invalid mime|mime (?:complexity|header)|improperly[- ]formatted|unnecessary base64|too many received|header size exceeds|message header size|media error|content error|malformed (?:message|header)/;

export const SYSTEM_FULL =
  /mail system full|system (?:storage|disk) (?:is )?full|insufficient system storage/;

export const NOT_ACCEPT =
  /mail receiving disabled|null ?mx|(?:does|do) not accept (?:any )?mail|doesn't receive (?:e-?mail|mail)|(?:host|domain|server|system) (?:is )?not accepting (?:network )?(?:messages|mail)|no smtp service|no route for current request|smtp protocol returned a permanent error|host not found \(authoritative\)|no mx record found for domain|name server: \.: host not found/;

export const MAILER_ERROR =
  /mailer error|procmail|maildrop|command (?:failed|died|output)|pipe to \||x-unix; ?\d+|\bexit (?:status )?\d+|delivery to (?:file|program) failed/;

export const SYNTAX_ERROR =
  /syntax error|command (?:unrecognized|not recognized|not implemented)|parameter(?:s)? not implemented|bad sequence of commands|unrecognized command/;

/** Statuses that decide at once when the report gives them. */
export const FIRST_PASS_STATUS: ReadonlySet<BounceReason> = new Set([
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
export const UNKNOWN_WITHOUT_CONTEXT: BounceReason = 'user_unknown';

/** Statuses with which "user unknown" is the recipient's filter: security/policy, mailbox status. */
export const FILTER_STATUS = /^[45]\.(?:7\.\d+|2\.[02-9]|1\.4)$/;
/** At MAIL FROM, words of non-existence are about our sender. */
export const SENDER_MISSING = /does not exist|unknown|invalid/;
/** Transient DNS trouble is not an unknown host. */
export const TRANSIENT_DNS = /dns error|not found, try again/;
export const WHITESPACE = /\s+/g;
export const SPACES = / {2,}/g;
export const STATUS_TOKEN = /([245])\.(\d{1,3})\.(\d{1,3})/;
export const DOCOMO_UNKNOWN = /unknown user|user unknown/;

/** Our account's or IP's sending quota (Amazon SES). */
export const SENDER_QUOTA = /throttling failure|(?:daily|hourly|sending) (?:message |sending )?quota/;

/** Our sending rate or volume limits (Microsoft 365, Google Workspace). */
export const SENDER_LIMIT =
  /submission quota exceeded|exceeded permitted limits|tenant has exceeded threshold|message receive limit|thread limit exceeded|reached your daily limit|(?:daily|hourly) (?:user )?(?:sending|relay|smtp relay) limit/;

/** The receiving side requires TLS that we did not use. */
export const TLS_REQUIRED =
  /\btls (?:required|wasn't used|was not used)|(?:use|requires?) tls\b|tls\/ssl during smtp|encryption (?:is )?required|requires? encryption|starttls (?:is )?required|must support tls/;

/** A local delivery agent's own failure (procmail, a pipe), whatever words follow. */
export const MAILER_PREFIX =
  /\b(?:procmail|maildrop):|command output:|x-unix;|^pipe to \||operating system error/;

/** The domain publishes a null MX (RFC 7505) or has no mail exchanger at all. */
export const NULL_MX =
  /null ?mx|does not accept mail \(nullmx\)|(?:host|domain)(?:\/domain)? does not accept (?:any )?mail|doesn't receive (?:e-?mail|mail)|no smtp service|(?:couldn't|could not|cannot) find a mail exchanger|name server: \.: host not found/;

/** With a 5.1.x status, text saying it is about something else than the address. */
export const OTHER_THAN_UNKNOWN: readonly RegExp[] = [
  REJECTED,
  BLOCKED_IP,
  FILTERED,
  SPEEDING,
  TOO_MANY_CONN,
  NOT_ACCEPT,
  BAD_REPUTATION,
  REQUIRE_PTR,
];

export const FIRST_PASS: readonly Rule[] = [
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

export const SECOND_PASS: readonly Rule[] = [
  ['content_error', CONTENT_ERROR],
  ['spam_detected', SPAM_DETECTED],
  ['policy_violation', POLICY_VIOLATION],
  ['virus_detected', VIRUS_DETECTED],
  ['bad_reputation', BAD_REPUTATION],
  ['security_error', SECURITY_ERROR],
  ['system_error', SYSTEM_ERROR],
  ['not_accept', NOT_ACCEPT],
  ['network_error', NETWORK_ERROR],
  ['speeding', SPEEDING],
  ['suspended', SUSPENDED],
  ['expired', EXPIRED],
  ['system_full', SYSTEM_FULL],
  ['mailer_error', MAILER_ERROR],
  ['syntax_error', SYNTAX_ERROR],
  ['blocked', BLOCKED_WORD],
];

export const COMMAND_STAGES: Readonly<Record<SmtpCommand, Exclude<Stage, null>>> = {
  CONN: 'connect',
  HELO: 'helo',
  MAIL: 'mail',
  RCPT: 'rcpt',
  DATA: 'data',
};

export const STAGE_PATTERNS: ReadonlyArray<readonly [Exclude<Stage, null>, RegExp]> = [
  ['rcpt', /\brcpt to\b|\brcpt command|after rcpt|\[rcpt_to\]|in reply to rcpt/],
  ['data', />>> data\b|end of data|\bdata command|after data|final data|message body|after end of data/],
  ['mail', /\bmail from\b|in reply to mail command/],
  ['helo', /\b(?:ehlo|helo)\b/],
  ['connect', /initial connection|refused to talk to me|greeting|banner/],
];

export const STATUS_IN_TEXT = /(?:^|[^0-9a-z.])([245])\.(\d{1,3})\.(\d{1,3})(?![0-9.]\d)/g;
export const REPLY_CODE_IN_TEXT = /(?:^|[^0-9.-])([45]\d\d)(?:[ ,;:-]|$)/;
export const CONTINUATION =
  /(?:^|\s)[245]\d\d(?:-(?:[245]\.\d{1,3}\.\d{1,3}(?=\s))?|\s[245]\.\d{1,3}\.\d{1,3}(?=\s))/g;

/**
 * RFC 5321's own text for a 550 reply ("Requested action not taken: mailbox unavailable"): by the RFC
 * it covers "mailbox not found, no access, or command rejected for policy reasons", so alone it does
 * not say the address is unknown; it does at RCPT or with a 5.1.x status.
 */
export const GENERIC_UNAVAILABLE = /(?:requested action not taken: )?mailbox (?:is )?unavailable/g;

/**
 * RFC 3463's own text for X.2.1 ("Mailbox disabled, not accepting messages"): the status restated,
 * not a suspended account's words (sisimai reads 5.2.1 alone as `filtered`).
 */
export const RFC_MAILBOX_DISABLED = /\bmailbox disabled\b/;
/** Words that do name a suspended or closed account. */
export const ACCOUNT_SUSPENDED =
  /suspend|deactivat|inactive|locked|frozen|terminated|discontinued|tried to reach is disabled|account (?:is |has been )?disabled/;

/**
 * Zoho Mail writes each failed recipient as `<addr> <label>, ERROR_CODE :<reply>, ERROR_CODE :<the
 * remote's words>`; the label ("Invalid Address") is Zoho's for any 550, not the remote server's.
 */
export const ZOHO_LABEL = /^[a-z][a-z ]{0,40}, (?=error_code ?:)/;
