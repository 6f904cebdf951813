/**
 * `demo`: a local organization, workspace, workspace and provisioning keys, an inbox that sends to a
 * local SMTP sink (127.0.0.1:2525 unless told otherwise; `npm run cli -- mail:sink` runs one), a
 * published two-step sequence with A/B variants and an active campaign that starts a minute later
 * (`start_at`) and stops a whole company on reply; then prints what to call next. Everything goes
 * through the owning modules' services, exactly as the API and the other commands do.
 */
import { InjectDataSource } from '@nestjs/typeorm';
import { Command, Option } from 'nest-commander';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { JsonCommand, parseIntFlag, type JsonFlag } from '../../../common/cli/json-command.js';
import { PROVISIONING_SCOPES, WORKSPACE_SCOPES } from '../../../common/auth/scopes.js';
import { appConfig } from '../../../config/app-config.js';
import { dataDirPath, runningServiceUrl } from '../../../config/service-file.js';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { ContactsService } from '../../contacts/contacts.service.js';
import type { CreateContactDto } from '../../contacts/dto/upsert-contact.dto.js';
import { EnrollmentsService } from '../../enrollments/enrollments.service.js';
import { CampaignsService } from '../../campaigns/campaigns.service.js';
import type { CreateCampaignDto } from '../../campaigns/dto/campaign.dto.js';
import { connectInbox } from '../../inboxes/inboxes.service.js';
import { OrganizationsService } from '../../organizations/organizations.service.js';
import type { CreateSequenceDto } from '../../sequences/dto/sequence.dto.js';
import { SequencesService } from '../../sequences/sequences.service.js';
import { WorkspacesService } from '../../workspaces/workspaces.service.js';

interface Flags extends JsonFlag {
  smtpHost?: string;
  smtpPort?: number;
  name?: string;
  startsIn?: number;
}

/**
 * The address the printed calls use: the service running on this data folder (it writes
 * `service.json` when it listens, so `PORT=4300 npm start` is found without PORT here), else
 * PUBLIC_URL or http://localhost:PORT as the service itself would default.
 */
export function demoBaseUrl(): string {
  return runningServiceUrl(dataDirPath()) ?? appConfig().publicUrl;
}

export const DEMO_SINK_PORT = 2525;

@Command({
  name: 'demo',
  description:
    'Create a demo organization, workspace, keys, an inbox sending to a local SMTP sink, a published two-step sequence and an active campaign',
})
export class DemoCommand extends JsonCommand<Flags> {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly organizations: OrganizationsService,
    private readonly workspaces: WorkspacesService,
    private readonly keys: ApiKeysService,
    private readonly sequences: SequencesService,
    private readonly campaigns: CampaignsService,
    private readonly contacts: ContactsService,
    private readonly enrollments: EnrollmentsService,
  ) {
    super();
  }

  @Option({ flags: '--smtp-host <host>', description: 'SMTP sink host (default 127.0.0.1)' })
  parseSmtpHost(v: string): string {
    return v;
  }

  @Option({ flags: '--smtp-port <port>', description: `SMTP sink port (default ${DEMO_SINK_PORT})` })
  parseSmtpPort(v: string): number {
    return parseIntFlag('smtp-port')(v);
  }

  @Option({ flags: '--name <name>', description: 'organization and workspace name (default "Demo")' })
  parseName(v: string): string {
    return v;
  }

  @Option({ flags: '--starts-in <seconds>', description: 'campaign start, seconds from now (default 60)' })
  parseStartsIn(v: string): number {
    return parseIntFlag('starts-in')(v);
  }

  protected async execute(_: string[], o: Flags): Promise<Record<string, unknown>> {
    const name = o.name ?? 'Demo';
    const smtpHost = o.smtpHost ?? '127.0.0.1';
    const smtpPort = o.smtpPort ?? DEMO_SINK_PORT;
    const org = await this.organizations.create(name, {});
    const { workspace } = await this.workspaces.create(org.id, `${name} workspace`);
    const wsKey = await this.keys.create({
      tier: 'workspace',
      workspaceId: workspace.id,
      scopes: [...WORKSPACE_SCOPES],
      name: 'demo workspace key',
    });
    const pKey = await this.keys.create({
      tier: 'provisioning',
      organizationId: org.id,
      scopes: [...PROVISIONING_SCOPES],
      name: 'demo provisioning key',
    });
    const { inbox, inboundSecret } = await connectInbox(this.db, {
      workspaceId: workspace.id,
      email: 'hello@demo.localhost.test',
      displayName: 'Demo Sender',
      dailyLimit: 500,
      smtp: { host: smtpHost, port: smtpPort, secure: false, user: null, password: null },
    });

    const sequence = await this.sequences.create(workspace.id, {
      name: 'Demo sequence',
      steps: [
        {
          position: 1,
          delay_minutes: 0,
          subject: 'Quick question, {{ first_name | default: "there" }}',
          body: 'Hi {{ first_name | default: "there" }},\n\nHow is {{ company | default: "your team" }} doing?\n\n{{ sender.display_name }}',
          // Variant B: half of the enrollments get this one instead (variant A is the step itself).
          variants: [
            {
              subject: '{{ company | default: "Your team" }} and us?',
              body: 'Hello {{ first_name | default: "there" }},\n\nWould a short call about {{ company | default: "your team" }} help?\n\n{{ sender.display_name }}',
            },
          ],
        },
        {
          position: 2,
          delay_minutes: 1,
          subject: null,
          body: 'Hi {{ first_name | default: "there" }}, just following up on my note.\n\n{{ sender.display_name }}',
          variants: [
            {
              subject: null,
              body: 'Hi {{ first_name | default: "there" }}, any thoughts? (variant B)\n\n{{ sender.display_name }}',
            },
          ],
        },
      ],
    } as CreateSequenceDto);
    await this.sequences.publish(workspace.id, sequence.id);
    // A minute from now, on the minute (or --starts-in seconds from now, to the second).
    const startAt =
      o.startsIn === undefined
        ? new Date(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000)
        : new Date(Math.ceil((Date.now() + o.startsIn * 1000) / 1000) * 1000);
    const created = await this.campaigns.create(workspace.id, {
      name: 'Demo campaign',
      sequence_id: sequence.id,
      inbox_ids: [inbox.id],
      schedule: {
        timezone: 'UTC',
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        start_time: '00:00',
        end_time: '24:00',
      },
      // Scheduled start: active at once, nothing sent before this.
      start_at: startAt.toISOString(),
      stop_on_reply_scope: 'domain',
      // Its mail goes to a local sink, to the reserved example domains, which accept no mail in the real
      // DNS (a null MX): checked, every demo contact would be skipped as invalid and nothing would flow.
      verification: 'off',
    } as CreateCampaignDto);
    const campaign = await this.campaigns.update(workspace.id, created.id, { status: 'active' });
    // One contact enrolled, so mail flows at the start without a call; the printed calls add more.
    const contact = await this.contacts.store(workspace.id, {
      email: 'ada@example.com',
      first_name: 'Ada',
      company: 'Lovelace Ltd',
    } as CreateContactDto);
    const enrollment = await this.enrollments.create(workspace.id, campaign.id, contact.id);

    return {
      organization_id: org.id,
      workspace_id: workspace.id,
      workspace_key: wsKey.token,
      provisioning_key: pKey.token,
      inbox_id: inbox.id,
      inbox_email: inbox.email,
      inbound_secret: inboundSecret,
      smtp_sink: `${smtpHost}:${smtpPort}`,
      sequence_id: sequence.id,
      campaign_id: campaign.id,
      campaign_status: campaign.status,
      campaign_start_at: campaign.start_at,
      variants_per_step: sequence.steps.map((st) => 1 + st.variants.length),
      contact_id: contact.id,
      enrollment_id: enrollment.id,
      api_url: `${demoBaseUrl()}/api/v1`,
      reply_file: join(dataDirPath(), 'reply.eml'),
    };
  }

  protected override text(r: Record<string, unknown>): string {
    const base = String(r.api_url);
    const key = String(r.workspace_key);
    const auth = `-H "Authorization: Bearer ${key}" -H "Content-Type: application/json"`;
    return [
      'Demo tenant ready.',
      `  organization   ${String(r.organization_id)}`,
      `  workspace      ${String(r.workspace_id)}`,
      `  workspace key  ${key}   (shown once)`,
      `  provisioning   ${String(r.provisioning_key)}   (shown once)`,
      `  inbox          ${String(r.inbox_id)}  ${String(r.inbox_email)} -> SMTP ${String(r.smtp_sink)}`,
      `  inbound secret ${String(r.inbound_secret)}`,
      `  sequence       ${String(r.sequence_id)} (published, 2 steps, follow-up after 1 minute; variants A/B on each step, alternating by enrollment)`,
      `  campaign       ${String(r.campaign_id)} (active, every day, all day UTC; starts at ${String(r.campaign_start_at)}; a reply stops the whole company domain; address checks off: its mail goes to the sink)`,
      `  contact        ${String(r.contact_id)} ada@example.com, enrolled (enrollment ${String(r.enrollment_id)}): the first step goes out at the start`,
      '',
      'Next:',
      `  1. Run an SMTP sink that prints what arrives (another terminal):  npm run cli -- mail:sink --bodies --port ${String(r.smtp_sink).split(':')[1]}`,
      `  2. Start the service if it is not running:  npm start   (calls below go to ${base})`,
      '  3. Add another contact and enroll it (paste both lines into one shell):',
      `     GRACE_ID=$(curl -s ${auth} -d '{"email":"grace@example.org","first_name":"Grace","company":"Hopper Inc"}' ${base}/contacts | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)`,
      `     curl -s ${auth} -d "{\\"contact_id\\": $GRACE_ID}" ${base}/campaigns/${String(r.campaign_id)}/enrollments`,
      '  4. Watch it: the thread of Ada, then the figures per step and variant:',
      `     curl -s -H "Authorization: Bearer ${key}" "${base}/threads?contact_id=${String(r.contact_id)}"`,
      `     curl -s -H "Authorization: Bearer ${key}" "${base}/analytics/steps?campaign_id=${String(r.campaign_id)}"`,
      `  5. Reply as Ada (stops the enrollment): once the sink shows the first step, it has written a reply to it to ${String(r.reply_file)}:`,
      `     curl -s -H "Authorization: Bearer ${String(r.inbound_secret)}" -H "Content-Type: message/rfc822" --data-binary @${String(r.reply_file)} ${base}/inbound/${String(r.inbox_id)}`,
      `     curl -s -H "Authorization: Bearer ${key}" "${base}/threads?has_reply=true"`,
    ].join('\n');
  }
}
