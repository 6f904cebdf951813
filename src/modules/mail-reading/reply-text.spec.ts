import { REPLY_TEXT_MAX_CHARS, replyText } from './reply-text.js';

describe('replyText', () => {
  it.each([
    [
      'Gmail, English',
      "Sounds good, let's talk Thursday.\n\nBest regards,\nJohn Smith\nVP Sales\n\nOn Tue, Mar 3, 2026 at 10:15 AM Anna Becker <anna@acme.test> wrote:\n> Hi John,\n> reply STOP to unsubscribe\n",
      "Sounds good, let's talk Thursday.",
    ],
    [
      'Gmail, German, sign-off unknown to the library',
      'Bitte nehmen Sie mich aus Ihrem Verteiler.\n\nMit freundlichen Grüßen\nMax Muster\n\nAm Di., 3. März 2026 um 10:15 Uhr schrieb Anna Becker <anna@acme.test>:\n> Hallo Max,\n',
      'Bitte nehmen Sie mich aus Ihrem Verteiler.',
    ],
    [
      'Gmail header split over two lines',
      'Yes please.\n\nOn Tue, Mar 3, 2026 at 10:15 AM Anna Becker <\nanna@acme.test> wrote:\n> Want a demo?\n',
      'Yes please.',
    ],
    [
      'French Gmail',
      'Merci de me désinscrire.\n\nCordialement,\nJean\n\nLe mar. 3 mars 2026 à 10:15, Anna <anna@acme.test> a écrit :\n> Bonjour\n',
      'Merci de me désinscrire.',
    ],
    [
      'Spanish Outlook, "Mensaje original"',
      'No gracias.\n\nSaludos,\nJuan\n\n-----Mensaje original-----\nDe: Anna Becker [mailto:anna@acme.test]\nEnviado el: martes, 3 de marzo de 2026 10:15\nPara: Juan\nAsunto: Hola\n\n¿Quieres una demo?\n',
      'No gracias.',
    ],
    [
      'Outlook block without an address',
      'Interested, send more info\n\nFrom: Anna Becker\nSent: Tuesday, March 3, 2026 10:15 AM\nTo: Bob\nSubject: Quick question\n\nHi Bob, unsubscribe here\n',
      'Interested, send more info',
    ],
    [
      'German Outlook block',
      'Kein Interesse.\n\nVon: Anna Becker\nGesendet: Dienstag, 3. März 2026 10:15\nAn: Max\nBetreff: Frage\n\nAbmelden: https://x\n',
      'Kein Interesse.',
    ],
    [
      'Spanish Gmail',
      'Dejen de escribirme.\n\nEl mar, 3 mar 2026 a las 10:15, Anna Becker (<anna@acme.test>) escribió:\n> Hola\n',
      'Dejen de escribirme.',
    ],
    [
      'iPhone signature',
      'Stop emailing me\n\nSent from my iPhone\n\n> On Mar 3, 2026, at 10:15, Anna <a@b.test> wrote:\n> Hi\n',
      'Stop emailing me',
    ],
    ['dash-dash signature', 'Yes please\n-- \nBob\nCEO\n', 'Yes please'],
    ['CRLF line ends', 'Not now.\r\n\r\n-----Original Message-----\r\nFrom: A\r\n', 'Not now.'],
  ])('%s', (_name, body, expected) => {
    expect(replyText(body)).toBe(expected);
  });

  it(`caps the text at ${REPLY_TEXT_MAX_CHARS} characters`, () => {
    expect(replyText('a'.repeat(10_000))).toHaveLength(REPLY_TEXT_MAX_CHARS);
  });

  it('is empty when the reply is all quote', () => {
    expect(replyText('> quoted only\n> more\n')).toBe('');
  });
});
