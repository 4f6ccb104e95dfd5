/**
 * The mock upstream: one `node:http` server speaking the OpenAI (A/D), Anthropic (B), Gemini (C) and
 * Ollama wire formats, with behaviour injection and a capped request record.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAnthropicCountTokens, handleAnthropicMessages, handleAnthropicModels } from './anthropic';
import { PromptCache } from './anthropic-content';
import { BehaviorState } from './behavior';
import { handleBinary } from './binary';
import { DEFAULT_MODELS, isRecord } from './content';
import { handleControl, parseConfig } from './control';
import { errorBody, openaiError } from './errors';
import { cut, sendJson, sleep, wasCutByMock, writeBody, type Exchange, type Settings } from './exchange';
import { handleGeminiEmbed, handleGeminiGenerate, handleGeminiModels, summarizeGemini } from './gemini';
import { handleOllamaTags } from './ollama';
import { handleOpenAIChat, handleOpenAIEmbeddings, handleOpenAIModel, handleOpenAIModels } from './openai';
import { normalizePath, resolveRoute, type ResolvedRoute } from './routes';
import type {
  MockBehavior,
  MockConfig,
  MockProvider,
  MockProviderOptions,
  RecordedRequest,
} from './types';

export const DEFAULT_MAX_RECORDS = 1000;
const CONTROL_PREFIX = '/__mock/';

function parseQuery(search: string): Record<string, string> {
  const query: Record<string, string> = {};
  if (search) for (const [key, value] of new URLSearchParams(search)) query[key] = value;
  return query;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

class MockProviderServer implements MockProvider {
  readonly requests: RecordedRequest[] = [];
  url = '';
  port = 0;
  private seq = 0;
  private readonly behavior = new BehaviorState();
  private readonly promptCache = new PromptCache();
  private config!: Required<MockConfig>;
  private readonly initialConfig: Required<MockConfig>;
  private readonly models: string[];
  private settings!: Settings;
  readonly server: Server;

  constructor(options: MockProviderOptions) {
    this.models = options.models ? [...options.models] : [...DEFAULT_MODELS];
    this.initialConfig = {
      record: options.record ?? true,
      maxRecords: options.maxRecords ?? DEFAULT_MAX_RECORDS,
      validKeys: options.validKeys ? [...options.validKeys] : null,
      requireAuth: options.requireAuth ?? true,
    };
    this.applyConfig({ ...this.initialConfig });
    this.server = createServer({ keepAliveTimeout: 65_000, noDelay: true }, (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          writeBody(res, 500, openaiError(500, `mock provider error: ${String(err)}`));
        } else {
          res.destroy();
        }
      });
    });
    this.server.headersTimeout = 66_000;
  }

  get totalRequests(): number {
    return this.seq;
  }

  private applyConfig(config: Required<MockConfig>): void {
    this.config = config;
    this.settings = { validKeys: config.validKeys, requireAuth: config.requireAuth, models: this.models };
    this.trimRecord();
  }

  private trimRecord(): void {
    const excess = this.requests.length - this.config.maxRecords;
    if (excess > 0) this.requests.splice(0, excess);
  }

  setBehavior(behavior: MockBehavior | MockBehavior[] | null): void {
    this.behavior.set(behavior);
  }

  getBehavior(): MockBehavior[] {
    return this.behavior.list();
  }

  configure(config: MockConfig): void {
    const checked = parseConfig(config);
    this.applyConfig({
      ...this.config,
      ...checked,
      validKeys: checked.validKeys === undefined ? this.config.validKeys : checked.validKeys,
    });
  }

  getConfig(): Required<MockConfig> {
    return { ...this.config, validKeys: this.config.validKeys ? [...this.config.validKeys] : null };
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  reset(): void {
    this.requests.length = 0;
    this.seq = 0;
    this.behavior.set(null);
    this.promptCache.clear();
    this.applyConfig({ ...this.initialConfig });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
  }

  private record(
    req: IncomingMessage,
    time: number,
    seq: number,
    path: string,
    query: Record<string, string>,
    body: unknown,
    resolved: ResolvedRoute,
    res: ServerResponse,
  ): void {
    const entry: RecordedRequest = {
      seq,
      time,
      method: req.method ?? 'GET',
      path,
      query,
      headers: flattenHeaders(req),
      body,
      route: resolved.route,
      format: resolved.format,
    };
    const b = isRecord(body) ? body : undefined;
    if (resolved.model !== undefined) entry.model = resolved.model;
    else if (typeof b?.['model'] === 'string') entry.model = b['model'];
    if (resolved.route === 'gemini.stream') entry.stream = true;
    else if (resolved.route === 'gemini.generate') entry.stream = false;
    else if (typeof b?.['stream'] === 'boolean') entry.stream = b['stream'];
    if (resolved.route === 'gemini.generate' || resolved.route === 'gemini.stream') {
      entry.gemini = summarizeGemini(resolved.model ?? '', resolved.route === 'gemini.stream', body);
    }
    res.once('close', () => {
      if (!res.writableFinished && !wasCutByMock(res)) entry.clientClosedAt = Date.now();
    });
    this.requests.push(entry);
    if (this.requests.length > this.config.maxRecords) this.trimRecord();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = Date.now();
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
    const query = parseQuery(q >= 0 ? rawUrl.slice(q + 1) : '');
    const body = parseBody(await readBody(req));

    if (rawPath.startsWith(CONTROL_PREFIX)) {
      handleControl(this, method, rawPath, query, body, res);
      return;
    }

    const path = normalizePath(rawPath);
    const resolved = resolveRoute(method, path, req.headers);
    const seq = ++this.seq;
    if (this.config.record && this.config.maxRecords > 0) this.record(req, arrived, seq, rawPath, query, body, resolved, res);

    const rule = this.behavior.empty ? undefined : this.behavior.find(method, path, resolved.route, resolved.format);
    if (rule) {
      if (rule.latencyMs && !(await sleep(res, rule.latencyMs))) return;
      if (this.behavior.takeDrop(rule)) {
        cut(res);
        req.socket.destroy();
        return;
      }
      const failure = this.behavior.takeFailure(rule);
      if (failure) {
        const payload = failure.body ?? errorBody(resolved.format, failure.status, failure.message);
        writeBody(res, failure.status, payload, { ...rule.headers, ...failure.headers }, failure.truncate);
        return;
      }
    }

    const ex: Exchange = {
      req,
      res,
      method,
      path,
      query,
      body,
      seq,
      settings: this.settings,
      reply: rule?.reply,
      headers: rule?.headers,
      chunkDelayMs: rule?.chunkDelayMs ?? 0,
      takeAbort: () => (rule ? this.behavior.takeAbort(rule) : undefined),
      takeStreamError: () => (rule ? this.behavior.takeStreamError(rule) : undefined),
      promptCache: this.promptCache,
    };
    await dispatch(ex, resolved);
  }
}

async function dispatch(ex: Exchange, resolved: ResolvedRoute): Promise<void> {
  switch (resolved.route) {
    case 'openai.chat':
      return handleOpenAIChat(ex);
    case 'openai.embeddings':
      return handleOpenAIEmbeddings(ex);
    case 'openai.models':
      return handleOpenAIModels(ex);
    case 'openai.model':
      return handleOpenAIModel(ex, resolved.model ?? '');
    case 'anthropic.messages':
      return handleAnthropicMessages(ex);
    case 'anthropic.count_tokens':
      return handleAnthropicCountTokens(ex);
    case 'anthropic.models':
      return handleAnthropicModels(ex);
    case 'gemini.generate':
    case 'gemini.stream':
      return handleGeminiGenerate(ex, resolved.model ?? '', resolved.route === 'gemini.stream');
    case 'gemini.embed':
      return handleGeminiEmbed(ex, ex.path.endsWith(':batchEmbedContents'));
    case 'gemini.models':
      return handleGeminiModels(ex);
    case 'ollama.tags':
      return handleOllamaTags(ex);
    case 'openai.binary':
      return handleBinary(ex);
    default:
      sendJson(ex, 200, {
        method: ex.method,
        path: (ex.req.url ?? '/').split('?')[0],
        query: ex.query,
        headers: flattenHeaders(ex.req),
        body: ex.body ?? null,
      });
  }
}

/** Starts the mock upstream; resolves once it listens. */
export function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const mock = new MockProviderServer(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    mock.server.once('error', reject);
    mock.server.listen(options.port ?? 0, host, () => {
      mock.server.off('error', reject);
      const { port } = mock.server.address() as AddressInfo;
      mock.port = port;
      mock.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      resolve(mock);
    });
  });
}
