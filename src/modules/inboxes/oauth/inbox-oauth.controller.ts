import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, Tenant, WorkspaceAuth } from '../../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../../common/auth/principal.js';
import { ApiError } from '../../../common/http/api-error.js';
import { ApiDataResponse, ApiErrorResponses } from '../../../common/http/envelope.dto.js';
import { OAUTH_PROVIDERS } from '../../../config/mail-providers.js';
import { OAuthStartResponseDto, StartOAuthDto } from './dto/oauth.dto.js';
import { InboxOAuthService, isOAuthProvider, type OAuthCallbackResult } from './inbox-oauth.service.js';

@ApiTags('inboxes')
@Controller('inboxes/oauth')
export class InboxOAuthController {
  constructor(private readonly oauth: InboxOAuthService) {}

  @Post(':provider/start')
  @HttpCode(201)
  @WorkspaceAuth('inboxes:write')
  @ApiOperation({
    operationId: 'v1.inboxes.oauth_start',
    summary:
      'Begin connecting a Google or Microsoft inbox by OAuth 2.0: the consent URL to send the user to (409 when the provider is not configured)',
  })
  @ApiParam({ name: 'provider', enum: OAUTH_PROVIDERS })
  @ApiDataResponse(OAuthStartResponseDto, 201, 'Created')
  @ApiErrorResponses(400, 404, 409, 422)
  async start(
    @Tenant() t: WorkspaceTenant,
    @Param('provider') provider: string,
    @Body() body: StartOAuthDto,
  ) {
    if (!isOAuthProvider(provider)) throw ApiError.notFound();
    return { data: await this.oauth.start(t.workspaceId, provider, body.return_url ?? null) };
  }
}

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (title: string, inner: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style></head>
<body><h1>${escape(title)}</h1>${inner}</body></html>`;

const html = (example: string) => ({ 'text/html': { schema: { type: 'string' }, example } });

const REASONS: Record<Extract<OAuthCallbackResult, { ok: false }>['error'], string> = {
  invalid_state: 'This sign-in link is not valid or was already used. Start again from the application.',
  expired_state: 'This sign-in took longer than 10 minutes. Start again from the application.',
  access_denied: 'Access was not granted.',
  grant_refused: 'The provider refused the sign-in. Start again from the application.',
  provider_unavailable: 'The provider could not be reached or gave no usable answer. Try again later.',
  invalid_account:
    'The account cannot be connected as an inbox (the provider named no verified address for it).',
  account_mismatch:
    'This address is connected with another account. Sign in with that account, or disconnect the inbox first.',
};

/**
 * The provider sends the browser back here (`{PUBLIC_URL}/oauth/{provider}/callback`, off the API
 * prefix, no API key: the signed single-use state authenticates the flow).
 */
@ApiTags('inboxes')
@Controller('oauth')
@Public()
export class OAuthCallbackController {
  constructor(private readonly oauth: InboxOAuthService) {}

  @Get(':provider/callback')
  @ApiOperation({
    operationId: 'v1.oauth.callback',
    summary:
      "The provider's redirect after consent: connects the account as an inbox of the workspace that started the flow (public; the signed single-use state authenticates it)",
  })
  @ApiParam({ name: 'provider', enum: OAUTH_PROVIDERS })
  @ApiQuery({ name: 'state', required: false, description: 'The state `start` answered' })
  @ApiQuery({ name: 'code', required: false, description: 'The authorization code' })
  @ApiQuery({
    name: 'error',
    required: false,
    description: 'Set by the provider when access was not granted',
  })
  @ApiResponse({
    status: 200,
    description: 'Connected (no return_url)',
    content: html(
      page('Inbox connected', '<p><strong>ada@acme.com</strong> is connected. You can close this page.</p>'),
    ),
  })
  @ApiResponse({
    status: 303,
    description:
      "To the flow's return_url (on an origin of OAUTH_RETURN_ORIGINS), with `inbox_id` (connected) or `error` (access_denied, grant_refused, provider_unavailable, invalid_account, account_mismatch) in the query; an unknown or expired flow never redirects",
    headers: { Location: { description: 'The return_url with the outcome', schema: { type: 'string' } } },
  })
  @ApiResponse({
    status: 400,
    description:
      'Nothing was connected: a forged, reused or expired state (whatever the return_url), or, without a return_url, refused consent or a provider failure',
    content: html(page('Inbox not connected', `<p>${REASONS.invalid_state}</p><p>Reason: invalid_state</p>`)),
  })
  @ApiResponse({
    status: 409,
    description:
      'Nothing was connected (no return_url): the address is connected with another account of the provider (account_mismatch)',
    content: html(
      page('Inbox not connected', `<p>${REASONS.account_mismatch}</p><p>Reason: account_mismatch</p>`),
    ),
  })
  async callback(
    @Param('provider') provider: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const result = await this.oauth.callback(provider, query);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (result.returnUrl) {
      const to = new URL(result.returnUrl);
      if (result.ok) to.searchParams.set('inbox_id', result.inboxId);
      else to.searchParams.set('error', result.error);
      // No body: the answer is only where to go next.
      res.status(303).setHeader('Location', to.href);
      res.end();
      return;
    }
    if (result.ok) {
      res
        .status(200)
        .type('html')
        .send(
          page(
            'Inbox connected',
            `<p><strong>${escape(result.email)}</strong> is connected. You can close this page.</p>`,
          ),
        );
      return;
    }
    res
      .status(result.error === 'account_mismatch' ? 409 : 400)
      .type('html')
      .send(
        page('Inbox not connected', `<p>${escape(REASONS[result.error])}</p><p>Reason: ${result.error}</p>`),
      );
  }
}
