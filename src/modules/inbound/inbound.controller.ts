/**
 * `POST /api/v1/inbound/{inbox_id}`: raw RFC 5322 bytes from an MTA pipe (any content type, up to
 * 10 MiB, also after gzip/deflate inflation), authenticated by `Authorization: Bearer
 * <inbound_secret>` of that inbox → 202 with what the pipeline made of it. An unknown inbox and a
 * wrong secret look the same (401).
 *
 * The secret is checked before a byte of the body is read: the body is read here,
 * after the check, with `readBody` (413 past the limit). No middleware reads it first; should one
 * have (e.g. a JSON parser for an `application/json` request), what it left in `req.body` is used.
 */
import { Controller, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { Public } from '../../common/auth/auth.decorator.js';
import { ApiError } from '../../common/http/api-error.js';
import { MiB, readBody } from '../../common/http/body-reader.js';
import { ErrorEnvelopeDto } from '../../common/http/envelope.dto.js';
import { UuidPipe } from '../../common/http/id-params.js';
import { verifyInboundSecret } from '../inboxes/inbox-credentials.js';
import { IngestionService, type IngestResult } from './ingestion.service.js';
import { isTransientFailure } from './transient-failure.js';

/** The largest raw message the route reads (decoded bytes). */
export const INBOUND_LIMIT = 10 * MiB;

/** The raw message: read now (after authentication), or what a body parser already consumed. */
async function rawMessage(req: Request): Promise<Buffer | null> {
  const consumed: unknown = req.body;
  if (Buffer.isBuffer(consumed)) return consumed;
  if (typeof consumed === 'string') return Buffer.from(consumed);
  // Read by something else (e.g. parsed as JSON or a form): it is not a raw message any more.
  if (req.readableEnded || consumed !== undefined) return null;
  return readBody(req, INBOUND_LIMIT);
}

/** What an MTA hands over: a reply to a message the service sent. */
const RAW_MAIL_EXAMPLE = [
  'From: Ada Lovelace <ada@example.com>',
  'To: Sam Sender <sam@acme.test>',
  'Subject: Re: Hello Ada',
  'Message-ID: <reply-1@example.com>',
  'In-Reply-To: <3f2a9c@acme.test>',
  'Date: Tue, 24 Nov 2026 10:00:00 +0000',
  '',
  'Thanks, tell me more.',
  '',
].join('\r\n');

@ApiTags('inbound')
@Controller('inbound')
@Public()
export class InboundController {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly ingestion: IngestionService,
  ) {}

  @Post(':inbox_id')
  @HttpCode(202)
  @ApiOperation({
    requestBody: {
      required: true,
      description:
        'The raw message as received (RFC 5322), up to 10 MiB; gzip or deflate Content-Encoding accepted',
      content: Object.fromEntries(
        ['message/rfc822', 'application/octet-stream', 'text/plain'].map((type) => [
          type,
          { schema: { type: 'string', contentMediaType: 'message/rfc822' }, example: RAW_MAIL_EXAMPLE },
        ]),
      ),
    },
    operationId: 'v1.inbound.receive',
    summary:
      'Deliver one raw RFC 5322 message (replies, auto-replies, DSN bounces, ARF complaints) for an inbox',
    description:
      "For MTA pipes. The bearer token is the inbox's inbound secret (from inbox:connect), not an API key. The mail is read as a bounce in any common format (RFC 3464 and the plain-text forms of qmail, Exim, Postfix, Sendmail, Exchange, Gmail, Yahoo, Amazon SES, ...), a complaint in any wrapping, a delivery notice, an auto-reply or a person's reply (`read_as`), and matched to the sent message it is about by a quoted Message-ID or, for a report without one, by its failed recipient against this inbox's sends of the last 30 days. One sent message bounces at most once.",
  })
  @ApiParam({ name: 'inbox_id', format: 'uuid' })
  @ApiResponse({
    status: 202,
    description: 'Accepted: recorded, duplicate or ignored (unmatched)',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              type: 'object',
              required: ['status'],
              properties: {
                status: { type: 'string', enum: ['recorded', 'duplicate', 'ignored'] },
                read_as: {
                  type: 'string',
                  enum: ['reply', 'auto_reply', 'bounce', 'complaint', 'delivery_notice', 'unparseable'],
                  description:
                    'What the mail was read as (a `delivery_notice` reports a delivery or a delay: it is not recorded)',
                },
                kind: { type: 'string', description: 'recorded: reply, auto_reply, bounce or complaint' },
                classification: {
                  type: 'string',
                  description:
                    'recorded: `reply`, `auto_reply`, `hard_bounce`, `soft_bounce`, `complaint` or `not_spam` (a `Feedback-Type: not-spam` report, which suppresses nothing)',
                },
                bounce: {
                  description: 'recorded bounce: its verdict (reason, hard, status, smtp_code, diagnostic)',
                  allOf: [{ $ref: '#/components/schemas/BounceResponseDto' }],
                },
                message_id: { type: 'integer', format: 'int64', description: 'recorded or duplicate' },
                reason: { type: 'string', description: 'ignored: why nothing was recorded' },
              },
            },
          },
        },
        example: {
          data: {
            status: 'recorded',
            read_as: 'reply',
            kind: 'reply',
            classification: 'reply',
            message_id: 1842,
          },
        },
      },
    },
  })
  @ApiResponse({ status: 400, description: 'Empty body', type: ErrorEnvelopeDto })
  @ApiResponse({ status: 401, description: 'Unknown inbox or wrong inbound secret', type: ErrorEnvelopeDto })
  @ApiResponse({ status: 404, description: 'Malformed inbox id', type: ErrorEnvelopeDto })
  @ApiResponse({
    status: 413,
    description: 'Message over 10 MiB (counted after gzip/deflate inflation)',
    type: ErrorEnvelopeDto,
  })
  @ApiResponse({
    status: 503,
    description: 'The database is unavailable: nothing was recorded, deliver again later (Retry-After)',
    type: ErrorEnvelopeDto,
  })
  async receive(
    @Param('inbox_id', UuidPipe) inboxId: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() req: Request,
  ): Promise<{ data: IngestResult }> {
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    const inbox = await verifyInboundSecret(this.ds.manager, inboxId, secret);
    if (!inbox) throw ApiError.unauthenticated('A valid inbound secret for this inbox is required');
    const raw = await rawMessage(req);
    if (!raw || raw.length === 0) {
      throw new ApiError(400, 'invalid_request', 'The body must be the raw RFC 5322 message');
    }
    try {
      return { data: await this.ingestion.ingest(inbox, raw) };
    } catch (err) {
      // Nothing was recorded: the MTA keeps the mail and delivers it again (ingestion is idempotent).
      if (isTransientFailure(err)) {
        throw new ApiError(
          503,
          'service_unavailable',
          'Mail could not be recorded now; deliver it again later',
          undefined,
          { 'Retry-After': '60' },
        );
      }
      throw err;
    }
  }
}
