import { Controller, Get, Module } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';

/** Liveness: 200 `{status: 'ok'}` while the process runs. No authentication. */
@ApiTags('health')
@Controller()
export class LivenessController {
  @Get('health')
  @ApiOkResponse({ description: 'The process is running', schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } }, example: { status: 'ok' } } })
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [LivenessController] })
export class LivenessModule {}
