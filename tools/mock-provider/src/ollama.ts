/**
 * Ollama's native discovery route, `GET /api/tags` (no credential, like a local Ollama).
 */
import { createHash } from 'node:crypto';
import { sendJson, type Exchange } from './exchange';

function familyOf(name: string): string {
  const match = /^[a-z]+/i.exec(name);
  return match ? match[0].toLowerCase() : 'llama';
}

/** Lists the configured models that look like Ollama tags (`name:tag`); all of them (as `:latest`) if none do. */
export function handleOllamaTags(ex: Exchange): void {
  const tagged = ex.settings.models.filter((m) => m.includes(':'));
  const names = tagged.length ? tagged : ex.settings.models.map((m) => `${m}:latest`);
  const models = names.map((name) => ({
    name,
    model: name,
    modified_at: '2025-01-01T00:00:00.000000000Z',
    size: 2_019_393_189,
    digest: createHash('sha256').update(name).digest('hex'),
    details: {
      parent_model: '',
      format: 'gguf',
      family: familyOf(name),
      families: [familyOf(name)],
      parameter_size: '3.2B',
      quantization_level: 'Q4_K_M',
    },
  }));
  sendJson(ex, 200, { models });
}
