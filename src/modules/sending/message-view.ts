/** Events (`message.sent`, `email.replied`) carry the same Message representation as the API (CONTRACT §4). */
export {
  toMessageView as toMessageEventView,
  type MessageView as MessageEventView,
} from '../threads/threads.service.js';
