/** Queue names, in one place (STYLE §9). Each queue's jobs carry the tenant id in their payload. */
export enum QueueName {
  Imports = 'imports',
  Sending = 'sending',
  Webhooks = 'webhooks',
  Mail = 'mail',
  Maintenance = 'maintenance',
}
