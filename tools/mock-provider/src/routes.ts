/**
 * Maps a request to a route by the end of its path, so every route also works under any prefix
 * (`/v1/chat/completions`, `/chat/completions`, `/openai/v1/chat/completions`, ...).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteKind, WireFormat } from './types';

export interface ResolvedRoute {
  route: RouteKind;
  format: WireFormat;
  /** Model named in the path (Gemini routes, OpenAI model retrieval). */
  model?: string;
}

const GEMINI_ACTION = /\/models\/([^/]+?):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;
const GEMINI_MODELS = /\/v1(?:beta|alpha)\/models$/;
const MODEL_BY_ID = /\/models\/([^/]+)$/;
const FILE_CONTENT = /\/files\/[^/]+\/content$/;

const FORMAT_OF: Record<RouteKind, WireFormat> = {
  'openai.chat': 'openai',
  'openai.embeddings': 'openai',
  'openai.models': 'openai',
  'openai.model': 'openai',
  'anthropic.messages': 'anthropic',
  'anthropic.count_tokens': 'anthropic',
  'anthropic.models': 'anthropic',
  'gemini.generate': 'gemini',
  'gemini.stream': 'gemini',
  'gemini.embed': 'gemini',
  'gemini.models': 'gemini',
  'ollama.tags': 'ollama',
  'openai.binary': 'openai',
  echo: 'echo',
};

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Strips repeated and trailing slashes. */
export function normalizePath(path: string): string {
  const collapsed = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

function kind(method: string, path: string, headers: IncomingHttpHeaders): { route: RouteKind; model?: string } {
  if (method === 'POST') {
    const gemini = GEMINI_ACTION.exec(path);
    if (gemini) {
      const action = gemini[2];
      const route: RouteKind =
        action === 'generateContent' ? 'gemini.generate' : action === 'streamGenerateContent' ? 'gemini.stream' : 'gemini.embed';
      return { route, model: decode(gemini[1]) };
    }
    if (path.endsWith('/chat/completions')) return { route: 'openai.chat' };
    if (path.endsWith('/embeddings')) return { route: 'openai.embeddings' };
    if (path.endsWith('/messages/count_tokens')) return { route: 'anthropic.count_tokens' };
    if (path.endsWith('/messages') && !path.includes('/threads/')) return { route: 'anthropic.messages' };
    if (path.endsWith('/audio/speech')) return { route: 'openai.binary' };
    return { route: 'echo' };
  }
  if (method === 'GET') {
    if (path.endsWith('/api/tags')) return { route: 'ollama.tags' };
    if (FILE_CONTENT.test(path)) return { route: 'openai.binary' };
    if (GEMINI_MODELS.test(path)) return { route: 'gemini.models' };
    if (path.endsWith('/models')) {
      const anthropic = headers['anthropic-version'] !== undefined || (headers['x-api-key'] !== undefined && !headers['authorization']);
      return { route: anthropic ? 'anthropic.models' : 'openai.models' };
    }
    const byId = MODEL_BY_ID.exec(path);
    if (byId) return { route: 'openai.model', model: decode(byId[1]) };
  }
  return { route: 'echo' };
}

export function resolveRoute(method: string, path: string, headers: IncomingHttpHeaders): ResolvedRoute {
  const { route, model } = kind(method, path, headers);
  return model === undefined ? { route, format: FORMAT_OF[route] } : { route, format: FORMAT_OF[route], model };
}
