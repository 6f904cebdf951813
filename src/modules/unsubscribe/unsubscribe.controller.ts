/**
 * Public unsubscribe pages at `{PUBLIC_URL}/u/{token}` (outside /api/v1): GET shows a confirmation
 * form, POST unsubscribes (RFC 8058 one-click posts `List-Unsubscribe=One-Click`; the form posts the
 * same). Invalid tokens answer 404. Small HTML, no scripts, no external resources.
 */
import { Controller, Get, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../common/auth/auth.decorator.js';
import { UnsubscribeService } from './unsubscribe.service.js';
import { verifyUnsubscribeToken } from './unsubscribe-token.js';

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, inner: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style></head>
<body><h1>${escape(title)}</h1>${inner}</body></html>`;
}

function maskEmail(email: string): string {
  const [local, domain] = email.split('@');
  return `${local.slice(0, 2)}${'*'.repeat(Math.max(1, local.length - 2))}@${domain ?? ''}`;
}

/** The pages as the API document shows them (text/html, small, no scripts). */
const html = (example: string) => ({ 'text/html': { schema: { type: 'string' }, example } });
const CONFIRM_PAGE = page(
  'Unsubscribe',
  '<p>Stop emails to ad***@example.com?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
);
const DONE_PAGE = page('Unsubscribed', '<p>ad***@example.com will not receive these emails any more.</p>');
const NOT_FOUND_PAGE = page(
  'Link not valid',
  '<p>This unsubscribe link is not valid. Nothing was changed.</p>',
);

@ApiTags('unsubscribe')
@Controller('u')
@Public()
export class UnsubscribeController {
  constructor(private readonly unsubscribes: UnsubscribeService) {}

  @Get(':token')
  @ApiOperation({ operationId: 'v1.unsubscribe.show', summary: 'Unsubscribe confirmation page (HTML)' })
  @ApiParam({ name: 'token', description: 'Signed token from the List-Unsubscribe link' })
  @ApiResponse({
    status: 200,
    description: 'Confirmation page with a one-click form',
    content: html(CONFIRM_PAGE),
  })
  @ApiResponse({ status: 404, description: 'Unknown or tampered token', content: html(NOT_FOUND_PAGE) })
  async show(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const claims = verifyUnsubscribeToken(token);
    const email = claims ? await this.unsubscribes.addressOf(claims) : null;
    if (!claims || !email) return notFound(res);
    res
      .status(200)
      .type('html')
      .send(
        page(
          'Unsubscribe',
          `<p>Stop emails to <strong>${escape(maskEmail(email))}</strong>?</p>
<form method="post" action="/u/${escape(token)}"><input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button></form>`,
        ),
      );
  }

  @Post(':token')
  @ApiOperation({
    requestBody: {
      required: false,
      description:
        'RFC 8058 one-click: mail clients post `List-Unsubscribe=One-Click`; the page form posts the same',
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: { 'List-Unsubscribe': { type: 'string', enum: ['One-Click'] } },
          },
          example: { 'List-Unsubscribe': 'One-Click' },
        },
      },
    },
    operationId: 'v1.unsubscribe.confirm',
    summary: 'One-click unsubscribe (RFC 8058): suppresses the address and stops its enrollments',
  })
  @ApiParam({ name: 'token', description: 'Signed token from the List-Unsubscribe link' })
  @ApiResponse({
    status: 200,
    description: 'Unsubscribed (also when it already was)',
    content: html(DONE_PAGE),
  })
  @ApiResponse({ status: 404, description: 'Unknown or tampered token', content: html(NOT_FOUND_PAGE) })
  async confirm(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const claims = verifyUnsubscribeToken(token);
    const result = claims ? await this.unsubscribes.unsubscribe(claims) : null;
    if (!result) return notFound(res);
    res
      .status(200)
      .type('html')
      .send(
        page(
          'You are unsubscribed',
          `<p><strong>${escape(maskEmail(result.email))}</strong> will not receive further emails from this sender.</p>`,
        ),
      );
  }
}

function notFound(res: Response): void {
  res
    .status(404)
    .type('html')
    .send(page('Link not valid', '<p>This unsubscribe link is not valid. Nothing was changed.</p>'));
}
