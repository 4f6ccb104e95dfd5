import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import type { CanaryReport, CanaryStep } from '../usecases/run-canary.usecase';
import type { PrerequisiteCheck, RunnerHealth, RunnerPrerequisites } from '../runner-status';

/**
 * The OpenAPI description of the runner control plane's health, prerequisites and canary answers
 * (RunnerStatus, RunCanaryUseCase build them). Documentation only: `implements` keeps each class
 * in step with the shape the service returns.
 */

class RunnerSubsystems {
  @ApiProperty({ description: 'RUNNERS_ENABLED' })
  feature_flag!: boolean;

  @ApiProperty({ description: 'Whether `provider` can run runners now' })
  provider_available!: boolean;
}

class RunnerProviderState {
  @ApiProperty()
  configured!: boolean;

  @ApiProperty()
  available!: boolean;

  @ApiProperty()
  detail!: string;
}

/** SPEC.md `GET /health`: `{status, provider, subsystems{feature_flag, provider_available}}`, plus every provider's state. */
export class RunnerHealthResponse implements RunnerHealth {
  @ApiProperty({ enum: ['ok', 'degraded', 'disabled'], description: '`degraded` when a configured provider cannot work; `disabled` when the feature flag is off' })
  status!: RunnerHealth['status'];

  @ApiProperty({ description: 'The most capable provider configured (`local` when enabled, else `fake`)' })
  provider!: string;

  @ApiProperty({ type: () => RunnerSubsystems })
  subsystems!: RunnerSubsystems;

  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(RunnerProviderState) }, description: 'Every known provider type, by id' })
  providers!: Record<string, RunnerProviderState>;
}

class PrerequisiteCheckResponse implements PrerequisiteCheck {
  @ApiProperty({ example: 'provider:fake' })
  name!: string;

  @ApiProperty({ enum: ['ok', 'missing', 'not_configured'] })
  status!: PrerequisiteCheck['status'];

  @ApiProperty()
  required!: boolean;

  @ApiProperty()
  detail!: string;
}

export class RunnerPrerequisitesResponse implements RunnerPrerequisites {
  @ApiProperty({ description: 'Every required check is ok' })
  ready!: boolean;

  @ApiProperty({ type: [String], description: 'Names of the checks that failed' })
  missing!: string[];

  @ApiProperty({ type: () => [PrerequisiteCheckResponse] })
  checks!: PrerequisiteCheckResponse[];
}

class CanaryStepResponse implements CanaryStep {
  @ApiProperty({ enum: ['create', 'start', 'exec', 'stop', 'cleanup'] })
  step!: CanaryStep['step'];

  @ApiProperty({ enum: ['passed', 'failed', 'skipped'] })
  status!: CanaryStep['status'];

  @ApiProperty()
  duration_ms!: number;

  @ApiProperty({ type: 'object', additionalProperties: true })
  detail!: Record<string, unknown>;
}

/** `POST /canary`: 200 when passed, 503 when failed, with the same body. */
export class CanaryReportResponse implements CanaryReport {
  @ApiProperty({ enum: ['passed', 'failed'] })
  status!: CanaryReport['status'];

  @ApiProperty({ enum: ['fake'] })
  provider!: 'fake';

  @ApiProperty({ type: String, nullable: true })
  runner_id!: string | null;

  @ApiProperty({ type: String, nullable: true })
  session_id!: string | null;

  @ApiProperty({ type: () => [CanaryStepResponse] })
  steps!: CanaryStepResponse[];

  @ApiProperty()
  duration_ms!: number;
}

/** Registered as a component for RunnerHealthResponse.providers' `$ref`. */
export const RUNNER_OPS_EXTRA_MODELS = [RunnerProviderState];
