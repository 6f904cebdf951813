/**
 * An SMTP session transcript (Sendmail's `----- Transcript of session follows -----`, and the like):
 * `>>> RCPT To:<addr>` then `<<< 550 5.1.1 <addr>... User unknown`, or `550 <addr>... User unknown`.
 */
import type { FailedRecipient, SmtpCommand } from '../types.js';
import { ADDRESS, lines, recipientFrom, smtpCommand, type FormatReader, type ReportView } from './format.js';

const REPLY_ABOUT = new RegExp(
  `^(?:<<<\\s*)?([245]\\d\\d)[ -](?:[245]\\.\\d{1,3}\\.\\d{1,3}\\s+)?<?(${ADDRESS.source})>?\\.\\.\\.`,
);
const COMMAND = new RegExp(`^>>>\\s*RCPT\\s+TO:\\s*<?(${ADDRESS.source})`, 'i');
const REPLY = /^<<<\s*([245]\d\d[ -].*)$/;

export function readTranscript(text: string): FailedRecipient[] {
  const found = new Map<string, string[]>();
  const commands = new Map<string, SmtpCommand>();
  let pending: string | null = null;
  let lastCommand: SmtpCommand | undefined;
  for (const raw of lines(text)) {
    const line = raw.trim();
    if (line.startsWith('>>>')) lastCommand = smtpCommand(line);
    const about = REPLY_ABOUT.exec(line);
    if (about) {
      const a = about[2].toLowerCase();
      if (lastCommand && line.startsWith('<<<')) commands.set(a, lastCommand);
      found.set(a, [...(found.get(a) ?? []), line.replace(/^<<<\s*/, '')]);
      pending = null;
      continue;
    }
    const cmd = COMMAND.exec(line);
    if (cmd) {
      pending = cmd[1].toLowerCase();
      continue;
    }
    const reply = REPLY.exec(line);
    if (reply && pending) {
      found.set(pending, [...(found.get(pending) ?? []), reply[1]]);
      if (lastCommand) commands.set(pending, lastCommand);
      if (/^[45]/.test(reply[1])) pending = null;
    }
  }
  return [...found].map(([address, said]) =>
    recipientFrom(address, said[said.length - 1], { command: commands.get(address) }),
  );
}

export const transcript: FormatReader = {
  name: 'smtp-transcript',
  read: (view: ReportView) => (/^(?:>>>|<<<)|\.\.\. /m.test(view.text) ? readTranscript(view.text) : []),
};
