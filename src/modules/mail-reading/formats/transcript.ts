/**
 * An SMTP session transcript (Sendmail's `----- Transcript of session follows -----`, and the like):
 * `>>> RCPT To:<addr>` then `<<< 550 5.1.1 <addr>... User unknown`, or `550 <addr>... User unknown`;
 * Postfix's postmaster notice writes the same as `In:`/`Out:`.
 */
import type { FailedRecipient, SmtpCommand } from '../types.js';
import { ADDRESS, lines, recipientFrom, smtpCommand, type FormatReader, type ReportView } from './format.js';
import { excludedAddresses } from './prose.js';

const REPLY_ABOUT = new RegExp(
  `^(?:<<<\\s*)?([245]\\d\\d)[ -](?:[245]\\.\\d{1,3}\\.\\d{1,3}\\s+)?<?(${ADDRESS.source})>?\\.\\.\\.`,
);
const COMMAND = new RegExp(`^>>>\\s*RCPT\\s+TO:\\s*<?(${ADDRESS.source})`, 'i');
const REPLY = /^<<<\s*([245]\d\d[ -].*)$/;

export function readTranscript(text: string, excluded: ReadonlySet<string> = new Set()): FailedRecipient[] {
  const found = new Map<string, string[]>();
  const commands = new Map<string, SmtpCommand>();
  let pending: string | null = null;
  let lastCommand: SmtpCommand | undefined;
  /** A refusal of the session itself (a reply to MAIL FROM, naming the sender), for what follows. */
  let refused: string | null = null;
  for (const raw of lines(text)) {
    // Postfix's postmaster transcript writes `In:`/`Out:` for `>>>`/`<<<`.
    const line = raw
      .trim()
      .replace(/^In:\s+/, '>>> ')
      .replace(/^Out:\s+/, '<<< ');
    if (line.startsWith('>>>')) lastCommand = smtpCommand(line);
    if (/^(?:while talking to|\.\.\. while talking to)/i.test(line)) refused = null;
    const about = REPLY_ABOUT.exec(line);
    if (about) {
      const a = about[2].toLowerCase();
      const answered = line.startsWith('<<<') ? lastCommand : undefined;
      // The address in a reply to MAIL FROM is the sender's: the session was refused, not a recipient.
      if (answered === 'MAIL' || excluded.has(a)) {
        if (answered === 'MAIL') refused = line.replace(/^<<<\s*/, '');
        continue;
      }
      let words = line.replace(/^<<<\s*/, '');
      // A recipient line with no reply of its own ("554 <addr>... Remote protocol error") after a
      // refused session carries the session's refusal.
      if (refused && !answered && !/\.\.\.\s*.*\b[245]\d\d\b/.test(words)) {
        words = `${words}: ${refused}`;
        commands.set(a, 'MAIL');
      }
      if (answered) commands.set(a, answered);
      found.set(a, [...(found.get(a) ?? []), words]);
      pending = null;
      continue;
    }
    const cmd = COMMAND.exec(line);
    if (cmd) {
      pending = cmd[1].toLowerCase();
      continue;
    }
    const reply = REPLY.exec(line);
    // The first refusal after the recipient's RCPT TO is its answer (an accepted RCPT and a refused
    // DATA: the refusal of the DATA).
    if (reply && pending && /^[45]/.test(reply[1])) {
      found.set(pending, [...(found.get(pending) ?? []), reply[1]]);
      if (lastCommand) commands.set(pending, lastCommand);
      pending = null;
    }
  }
  return [...found].map(([address, said]) =>
    recipientFrom(address, said[said.length - 1], {
      command: commands.get(address),
    }),
  );
}

export const transcript: FormatReader = {
  name: 'smtp-transcript',
  read: (view: ReportView) =>
    /^(?:>>>|<<<|\s*(?:In|Out):\s)|\.\.\. /m.test(view.text)
      ? readTranscript(view.text, excludedAddresses(view))
      : [],
};
