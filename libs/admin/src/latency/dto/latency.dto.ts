import { ApiProperty } from '@nestjs/swagger';
import type { LatencyPercentiles } from '../percentiles';
import { ReportWindow } from '../../usage/dto/usage.dto';

/** Nearest-rank percentiles of a set of latencies (each an observed value, in ms; all 0 when `count` is 0). */
export class LatencyPercentilesView implements LatencyPercentiles {
  @ApiProperty({ type: 'integer', description: 'samples' })
  count!: number;
  @ApiProperty({ type: Number })
  p50_ms!: number;
  @ApiProperty({ type: Number })
  p95_ms!: number;
  @ApiProperty({ type: Number })
  p99_ms!: number;
  @ApiProperty({ type: Number })
  avg_ms!: number;
  @ApiProperty({ type: Number })
  max_ms!: number;
}

export class ProviderLatency extends LatencyPercentilesView {
  @ApiProperty({ type: String })
  provider!: string;
}

export class ModelLatency extends ProviderLatency {
  @ApiProperty({ type: String })
  model!: string;
}

/** `GET /latency`: the percentiles overall, then by provider and by model, largest groups first. */
export class LatencyReport extends ReportWindow {
  @ApiProperty({ enum: ['nearest_rank'] })
  method!: 'nearest_rank';
  @ApiProperty({ type: () => LatencyPercentilesView })
  overall!: LatencyPercentilesView;
  @ApiProperty({ type: () => [ProviderLatency] })
  by_provider!: ProviderLatency[];
  @ApiProperty({ type: () => [ModelLatency] })
  by_model!: ModelLatency[];
}
