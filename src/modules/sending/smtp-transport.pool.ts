/**
 * One pooled nodemailer transport per inbox, keyed by the sealed credentials so a reconnected inbox
 * gets a fresh pool. Timeouts are bounded so a stalled server can never hold a send longer than the
 * claim lease (see send-engine.service.ts).
 */
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailServerSettings } from '../inboxes/inbox-credentials.js';

export const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export function createSmtpTransport(s: MailServerSettings, pooled = true): Transporter {
  return nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    auth: s.user ? { user: s.user, pass: s.password ?? '' } : undefined,
    pool: pooled,
    maxConnections: 4,
    maxMessages: 500,
    ...SMTP_TIMEOUTS,
  });
}

@Injectable()
export class SmtpTransportPool implements OnModuleDestroy {
  private readonly transports = new Map<string, { fingerprint: string; transport: Transporter }>();

  /** `settings` is only called (credentials decrypted) when the inbox has no pool for `fingerprint`. */
  get(inboxId: string, fingerprint: string, settings: () => MailServerSettings): Transporter {
    const cached = this.transports.get(inboxId);
    if (cached && cached.fingerprint === fingerprint) return cached.transport;
    cached?.transport.close();
    const transport = createSmtpTransport(settings());
    this.transports.set(inboxId, { fingerprint, transport });
    return transport;
  }

  onModuleDestroy(): void {
    for (const { transport } of this.transports.values()) transport.close();
    this.transports.clear();
  }
}
