/** Event names and the families endpoints subscribe to. */
export const EVENT_FAMILIES = {
  message: ['message.sent'],
  email: ['email.replied', 'email.bounced', 'email.complained', 'email.categorized'],
  contact: ['contact.created', 'contact.referred'],
  /**
   * `enrollment.branched` and `enrollment.held`: sequences that react (CONTRACT §23);
   * `enrollment.stopped` {enrollment}: the address gate skipped it (CONTRACT §24).
   */
  enrollment: ['enrollment.completed', 'enrollment.branched', 'enrollment.held', 'enrollment.stopped'],
  /** `inbox.error` {inbox_id, email, status, error}: a failure that changed an inbox's status (CONTRACT §19). */
  inbox: ['inbox.error'],
} as const;

export type EventFamily = keyof typeof EVENT_FAMILIES;
export type EventType = (typeof EVENT_FAMILIES)[EventFamily][number];

/** Every event a delivery can carry: the families' events and the test event of `POST .../test`. */
export const DELIVERY_EVENT_TYPES = [...Object.values(EVENT_FAMILIES).flat(), 'webhook.test'] as const;

/** Reserved names with no emitter: opens and clicks are not tracked. */
export const RESERVED_EVENT_TYPES = ['email.opened', 'email.clicked'] as const;

export const familyOf = (type: EventType): EventFamily => type.split('.')[0] as EventFamily;
