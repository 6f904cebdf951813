/**
 * Google Groups: a post to a group that does not exist or does not take the sender's posts comes
 * back from Google's mailer-daemon in the sender's language, naming the group in
 * X-Failed-Recipients. The group refused the sender: `rejected`, whatever the language.
 */
import { firstAddress, recipientFrom, type FormatReader, type ReportView } from './format.js';

export const googleGroups: FormatReader = {
  name: 'google-groups',
  read: (view: ReportView) => {
    const failed = firstAddress(view.header('x-failed-recipients') ?? '');
    if (!failed?.endsWith('@googlegroups.com') && !/groups\.google\.com\/support/.test(view.text)) return [];
    return [recipientFrom(failed, view.text, { hint: 'rejected', action: 'failed' })];
  },
};
