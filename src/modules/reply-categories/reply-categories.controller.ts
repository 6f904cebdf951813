import { Body, Controller, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { ThreadResponseDto, UpdateThreadDto } from '../threads/dto/thread.dto.js';
import { ReplyCategoriesService } from './reply-categories.service.js';

/** `PATCH /threads/{id}`: a person corrects the category of the thread's latest reply. */
@ApiTags('threads')
@Controller()
export class ReplyCategoriesController {
  constructor(private readonly categories: ReplyCategoriesService) {}

  @Patch('threads/:thread')
  @WorkspaceAuth('threads:write')
  @ApiOperation({
    operationId: 'v1.threads.update',
    summary: "Correct the category of the thread's latest reply",
    description:
      'The latest reply of the thread takes `category` with `category_source: "manual"` (a later decision of the service never overrides it) and `email.categorized` fires again. `unsubscribe_request` suppresses the address (`unsubscribed`) and stops its enrollments, as the one-click link does; correcting it away does not lift the suppression (delete the suppression for that). `interested` in the analytics follows the correction. A thread without a reply answers 409',
  })
  @ApiDataResponse(ThreadResponseDto)
  @ApiErrorResponses(400, 404, 409, 422)
  async update(
    @Tenant() t: WorkspaceTenant,
    @Param('thread', IntIdPipe) id: number,
    @Body() body: UpdateThreadDto,
  ) {
    return { data: await this.categories.correct(t.workspaceId, id, body.category) };
  }
}
