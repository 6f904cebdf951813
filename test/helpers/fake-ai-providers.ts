/**
 * A local fake of each AI provider's HTTP API (node:http on 127.0.0.1, one server per provider),
 * speaking the request and response JSON of the real APIs closely enough for the official SDKs, and
 * recording every request. Used by the reply-category tests; phase 2's e2e can point the workspace's
 * base URLs at it.
 *
 * - openai:    POST /v1/chat/completions (the base URL ends in `/v1`, as OpenAI's does)
 * - anthropic: POST /v1/messages
 * - google:    POST /v1beta/models/{model}:generateContent
 * - mistral:   POST /v1/chat/completions
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeProviderName = 'openai' | 'anthropic' | 'google' | 'mistral';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  raw: string;
}

/**
 * What the fake does: answer with this text as the model's output (for Anthropic a JSON object becomes
 * the forced tool's input, anything else a text block), answer with an HTTP error, or never answer.
 */
export type FakeBehaviour = { answer: string } | { status: number } | { hang: true };

export interface FakeProvider {
  provider: FakeProviderName;
  baseUrl: string;
  requests: RecordedRequest[];
  behave(behaviour: FakeBehaviour): void;
  close(): Promise<void>;
}

const PATHS: Record<FakeProviderName, RegExp> = {
  openai: /^\/v1\/chat\/completions$/,
  anthropic: /^\/v1\/messages$/,
  google: /^\/v1beta\/models\/[^/:]+:generateContent$/,
  mistral: /^\/v1\/chat\/completions$/,
};

function modelOf(provider: FakeProviderName, path: string, body: unknown): string {
  if (provider === 'google') return decodeURIComponent(/models\/([^/:]+):/.exec(path)?.[1] ?? '');
  return String((body as { model?: unknown } | null)?.model ?? '');
}

function anthropicContent(answer: string): unknown[] {
  try {
    const input = JSON.parse(answer) as unknown;
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      return [{ type: 'tool_use', id: 'toolu_01Fake', name: 'reply_category', input }];
    }
  } catch {
    // not JSON: the model wrote prose
  }
  return [{ type: 'text', text: answer }];
}

/** The provider's success body around the model's output, shaped as its API documents it. */
function successBody(provider: FakeProviderName, model: string, answer: string): unknown {
  const created = Math.floor(Date.now() / 1000);
  switch (provider) {
    case 'openai':
      return {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer, refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 },
      };
    case 'mistral':
      return {
        id: 'cmpl-fake',
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer, tool_calls: null },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 },
      };
    case 'anthropic':
      return {
        id: 'msg_01Fake',
        type: 'message',
        role: 'assistant',
        model,
        content: anthropicContent(answer),
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 120, output_tokens: 8 },
      };
    case 'google':
      return {
        candidates: [
          { content: { parts: [{ text: answer }], role: 'model' }, finishReason: 'STOP', index: 0 },
        ],
        usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 8, totalTokenCount: 128 },
        modelVersion: model,
        responseId: 'fake',
      };
  }
}

function errorBody(provider: FakeProviderName, status: number): unknown {
  switch (provider) {
    case 'anthropic':
      return { type: 'error', error: { type: 'api_error', message: 'Internal server error' } };
    case 'google':
      return { error: { code: status, message: 'Internal error encountered.', status: 'INTERNAL' } };
    case 'openai':
    case 'mistral':
      return {
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeProvider(provider: FakeProviderName): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  let behaviour: FakeBehaviour = { answer: '{"category":"other"}' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw) as unknown;
      } catch {
        body = null;
      }
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, raw });
      if (req.method !== 'POST' || !PATHS[provider].test(path)) return send(res, 404, { error: 'not found' });
      if ('hang' in behaviour) return; // never answers; close() ends the socket
      if ('status' in behaviour) return send(res, behaviour.status, errorBody(provider, behaviour.status));
      return send(res, 200, successBody(provider, modelOf(provider, path, body), behaviour.answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  return {
    provider,
    baseUrl: provider === 'openai' ? `${root}/v1` : root,
    requests,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
