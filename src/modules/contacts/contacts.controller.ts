import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, type Collection } from '../../common/http/pagination.js';
import type { ContactView } from './contact.view.js';
import { ContactsService } from './contacts.service.js';
import { ContactResponseDto } from './dto/contact-response.dto.js';
import { ListContactsQueryDto } from './dto/list-contacts-query.dto.js';
import { CreateContactDto, UpdateContactDto } from './dto/upsert-contact.dto.js';

@ApiTags('contacts')
@Controller('contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @WorkspaceAuth('contacts:read')
  @ApiOperation({
    operationId: 'v1.contacts.index',
    summary: 'Contacts, newest first; unknown query parameters are ignored',
  })
  @ApiCollectionResponse(ContactResponseDto)
  @ApiErrorResponses(422)
  async index(
    @Tenant() tenant: WorkspaceTenant,
    @Query() query: ListContactsQueryDto,
    @Req() req: Request,
  ): Promise<Collection<ContactView>> {
    return collection(await this.contacts.list(tenant.workspaceId, query), (c) => c, req);
  }

  @Post()
  @HttpCode(200)
  @WorkspaceAuth('contacts:write')
  @ApiOperation({
    operationId: 'v1.contacts.store',
    summary: 'Create or merge a contact keyed by its normalised email (200 either way)',
    description:
      'Provided fields overwrite, absent fields are kept, null clears a field; custom_fields merge key ' +
      'by key (a null value removes the key). `contact.created` fires only when a contact was inserted. ' +
      "A new contact beyond the plan's max_contacts_per_workspace → 403 plan_limit_exceeded (a merge " +
      'into an existing contact is always allowed).',
  })
  @ApiDataResponse(ContactResponseDto)
  @ApiErrorResponses(400, 403, 422)
  async store(@Tenant() tenant: WorkspaceTenant, @Body() body: CreateContactDto) {
    return { data: await this.contacts.store(tenant.workspaceId, body) };
  }

  @Get(':contact')
  @WorkspaceAuth('contacts:read')
  @ApiOperation({ operationId: 'v1.contacts.show', summary: 'One contact' })
  @ApiDataResponse(ContactResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() tenant: WorkspaceTenant, @Param('contact', IntIdPipe) id: number) {
    return { data: await this.contacts.show(tenant.workspaceId, id) };
  }

  @Patch(':contact')
  @WorkspaceAuth('contacts:write')
  @ApiOperation({
    operationId: 'v1.contacts.update',
    summary: 'Merge fields into a contact (same rules as the upsert); the email cannot change',
  })
  @ApiDataResponse(ContactResponseDto)
  @ApiErrorResponses(400, 404, 422)
  async update(
    @Tenant() tenant: WorkspaceTenant,
    @Param('contact', IntIdPipe) id: number,
    @Body() body: UpdateContactDto,
  ) {
    return { data: await this.contacts.update(tenant.workspaceId, id, body) };
  }
}
