import { ApiProperty } from '@nestjs/swagger';
import type { ChatIntegrationView } from '../chat-integration.service';

/** The team-chat integration as the API shows it (ChatIntegrationView): the URL only as `url_hint`. */
export class ChatIntegrationViewDto implements ChatIntegrationView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['slack'] }) kind!: 'slack';
  @ApiProperty({ example: 'https://hooks.slack.com/…XXXX', description: 'Scheme, host and the last four characters of the URL (a credential)' }) url_hint!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: [String], description: 'Event types posted; empty = every event' }) events!: string[];
  @ApiProperty({ nullable: true, type: String }) last_delivery_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) last_error!: string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}
