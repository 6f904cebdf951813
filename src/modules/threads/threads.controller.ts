import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import { ListThreadsQueryDto, MessageResponseDto, ThreadResponseDto } from './dto/thread.dto.js';
import { toMessageView, type MessageView } from './message.view.js';
import { toThreadView, type ThreadView } from './thread.view.js';
import { ThreadsService } from './threads.service.js';

@ApiTags('threads')
@Controller()
export class ThreadsController {
  constructor(private readonly threads: ThreadsService) {}

  @Get('threads')
  @WorkspaceAuth('threads:read')
  @ApiOperation({
    operationId: 'v1.threads.index',
    summary: 'Conversation threads, newest first, with filters',
  })
  @ApiCollectionResponse(ThreadResponseDto)
  @ApiErrorResponses(422)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Query() query: ListThreadsQueryDto,
    @Req() req: Request,
  ): Promise<Collection<ThreadView>> {
    return collection(await this.threads.list(t.workspaceId, query), toThreadView, req);
  }

  @Get('threads/:thread')
  @WorkspaceAuth('threads:read')
  @ApiOperation({ operationId: 'v1.threads.show', summary: 'One thread' })
  @ApiDataResponse(ThreadResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() t: WorkspaceTenant, @Param('thread', IntIdPipe) id: number) {
    return { data: await this.threads.show(t.workspaceId, id) };
  }

  @Get('threads/:thread/messages')
  @WorkspaceAuth('threads:read')
  @ApiOperation({ operationId: 'v1.threads.messages.index', summary: 'Messages of a thread, newest first' })
  @ApiCollectionResponse(MessageResponseDto)
  @ApiErrorResponses(404)
  async messages(
    @Tenant() t: WorkspaceTenant,
    @Param('thread', IntIdPipe) id: number,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<MessageView>> {
    return collection(await this.threads.messagesOf(t.workspaceId, id, query), toMessageView, req);
  }

  @Get('messages/:message')
  @WorkspaceAuth('threads:read')
  @ApiOperation({ operationId: 'v1.messages.show', summary: 'One message' })
  @ApiDataResponse(MessageResponseDto)
  @ApiErrorResponses(404)
  async message(@Tenant() t: WorkspaceTenant, @Param('message', IntIdPipe) id: number) {
    return { data: await this.threads.message(t.workspaceId, id) };
  }
}
