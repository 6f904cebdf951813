import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { parseTimestamp } from '../contacts/contact-fields.js';
import { toContactView, type ContactView } from '../contacts/contact.view.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { ContactResponseDto } from '../contacts/dto/contact-response.dto.js';
import { parseStageList, parseVerificationList } from '../contacts/dto/list-contacts-query.dto.js';
import { ApiError } from '../../common/http/api-error.js';
import { VerifyContactsDto, VerifyQueuedDto } from './dto/verify-contacts.dto.js';
import { VerificationService } from './verification.service.js';

@ApiTags('contacts')
@Controller('contacts')
export class VerificationController {
  constructor(
    private readonly verification: VerificationService,
    private readonly contacts: ContactsRepository,
  ) {}

  @Post('verify')
  @HttpCode(202)
  @WorkspaceAuth('contacts:write')
  @ApiOperation({
    operationId: 'v1.contacts.verifyMany',
    summary:
      'Check addresses again in the background: the ids given, or every contact the list filters select',
  })
  @ApiDataResponse(VerifyQueuedDto, 202, 'Accepted: the contacts are queued for a check')
  @ApiErrorResponses(400, 422)
  async verifyMany(
    @Tenant() tenant: WorkspaceTenant,
    @Body() body: VerifyContactsDto,
  ): Promise<{ data: { queued: number } }> {
    const queued = await this.verification.requeue(tenant.workspaceId, body.contact_ids, {
      stages: body.status !== undefined ? parseStageList(body.status) : undefined,
      verification: body.verification !== undefined ? parseVerificationList(body.verification) : undefined,
      email: body.email,
      sendable: body.sendable === 'true' ? true : body.sendable === 'false' ? false : undefined,
      createdAfter: body.created_after !== undefined ? parseTimestamp(body.created_after) : undefined,
      createdBefore: body.created_before !== undefined ? parseTimestamp(body.created_before) : undefined,
      updatedAfter: body.updated_after !== undefined ? parseTimestamp(body.updated_after) : undefined,
    });
    return { data: { queued } };
  }

  @Post(':contact/verify')
  @HttpCode(200)
  @WorkspaceAuth('contacts:write')
  @ApiOperation({
    operationId: 'v1.contacts.verify',
    summary: "Check the contact's address now; answers the contact with its new verdict within 10 s",
    description:
      'A verdict set by a hard bounce (`invalid` / `mailbox_unknown`) is stronger evidence than any check and is answered as it is, unchecked.',
  })
  @ApiDataResponse(ContactResponseDto)
  @ApiErrorResponses(404)
  async verifyOne(
    @Tenant() tenant: WorkspaceTenant,
    @Param('contact', IntIdPipe) id: number,
  ): Promise<{ data: ContactView }> {
    await this.verification.verifyNow(tenant.workspaceId, id);
    const contact = await this.contacts.findOne(tenant.workspaceId, { id });
    if (!contact) throw ApiError.notFound();
    return { data: toContactView(contact) };
  }
}
