import { Body, Controller, Headers, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Tenant, WorkspaceAuth } from '../../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../../common/auth/principal.js';
import { ApiDataResponse, ApiErrorResponses, ErrorEnvelopeDto } from '../../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../../common/http/id-params.js';
import { MessageResponseDto } from '../../threads/dto/thread.dto.js';
import type { MessageView } from '../../threads/message.view.js';
import { ManualReplyDto } from './dto/manual-reply.dto.js';
import { ManualReplyService } from './manual-reply.service.js';

const EXAMPLE = {
  id: 9121,
  thread_id: 311,
  direction: 'outbound',
  kind: 'manual',
  from: 'sam@acme-mail.com',
  to: 'pat@example.com',
  subject: 'Re: Quick question about Acme',
  body: 'Hi Pat,\n\nThursday at 10:00 works for me. I will send an invitation.\n\nSam',
  body_purged_at: null,
  message_id: '<5f0c2a9e-8d1b-4c47-9a3e-2b6d7f1e0c55@acme-mail.com>',
  in_reply_to: '<r-8e2f1a@example.com>',
  status: 'sent',
  sent_at: '2026-11-24T10:15:02.431Z',
  received_at: null,
  step_position: null,
  variant: null,
  error: null,
  bounce: null,
  category: null,
  category_source: null,
  created_at: '2026-11-24T10:15:02.118Z',
};

/** `POST /threads/{id}/messages`: a reply written by a person, sent now in the thread. */
@ApiTags('threads')
@Controller()
export class ManualReplyController {
  constructor(private readonly replies: ManualReplyService) {}

  @Post('threads/:thread/messages')
  @WorkspaceAuth('threads:write')
  @ApiOperation({
    operationId: 'v1.threads.messages.store',
    summary: 'Reply in a thread: send a message from its inbox to its contact now',
    description:
      "Sent from the thread's inbox to its contact, `In-Reply-To` the latest message of the conversation and `References` the chain, subject `Re: ` + the thread's subject unless `subject` is given, with the same `List-Unsubscribe` and `List-Unsubscribe-Post` headers as campaign steps. It takes one slot of the inbox's `daily_limit` (and of the workspace's `domain_daily_send_limit`), shared atomically with campaign sends, and no campaign limit. `message.sent` fires once SMTP accepted it. At most once: the message is recorded before SMTP and never resent automatically; see the 202 and 503 answers.",
  })
  @ApiDataResponse(MessageResponseDto, 201, 'Sent: the SMTP server accepted it (`status: "sent"`)', EXAMPLE)
  @ApiDataResponse(
    MessageResponseDto,
    202,
    'Outcome unknown: the message was handed to the SMTP server but its final answer never came (connection lost or timed out after DATA). It may have been delivered, so it is never resent: `status: "failed"`, `error` starting `outcome unknown`. A replay with the same Idempotency-Key answers the same',
    {
      ...EXAMPLE,
      status: 'failed',
      sent_at: null,
      error:
        'outcome unknown: the reply was handed to the SMTP server but no final reply came (ETIMEDOUT: Timeout); it will not be resent. Check with the recipient before writing again.',
    },
  )
  @ApiErrorResponses(400, 404)
  @ApiResponse({
    status: 409,
    description:
      "The thread's inbox is not `active`, or it (or its sending domain) reached its daily limit today; nothing was sent",
    type: ErrorEnvelopeDto,
  })
  @ApiResponse({
    status: 422,
    description:
      'validation_failed: `body` or `subject` invalid; `contact_id`: the contact is suppressed or gone (nothing sent), or its server refused the address for good (a hard bounce: the reply is recorded `failed`, the address suppressed `bounced`)',
    type: ErrorEnvelopeDto,
  })
  @ApiResponse({
    status: 503,
    description:
      "service_unavailable: the inbox's SMTP server refused or could not be reached before it could have accepted the message; nothing was sent and nothing is recorded (Retry-After; retrying with the same Idempotency-Key is safe)",
    type: ErrorEnvelopeDto,
  })
  async store(
    @Tenant() t: WorkspaceTenant,
    @Param('thread', IntIdPipe) threadId: number,
    @Body() body: ManualReplyDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ data: MessageView }> {
    const result = await this.replies.reply(t.workspaceId, threadId, body, idempotencyKey ?? null);
    res.status(result.status);
    return { data: result.message };
  }
}
