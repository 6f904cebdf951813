/**
 * Anthropic through its official SDK (`@anthropic-ai/sdk`): the Messages API with one tool whose input
 * schema is the category enum, forced by `tool_choice`. The tool is only the answer's shape: nothing
 * runs it and it reaches nothing. No retries, the SDK's logging off (`ANTHROPIC_LOG` ignored).
 *
 * The key: SDK 1.14 sends an `apiKey` as `Authorization: Bearer` (with its `anthropic-version`); the
 * Messages API has long documented `x-api-key`, which gateways behind `ANTHROPIC_BASE_URL` often expect.
 * Both carry the same key here. Passing the key in code also keeps the SDK from reading
 * `ANTHROPIC_AUTH_TOKEN` or a credentials profile.
 */
import type AnthropicClient from '@anthropic-ai/sdk';
import type { AiAdapter } from './ai-adapter.js';
import {
  AI_MAX_OUTPUT_TOKENS,
  ANSWER_NAME,
  categoryJsonSchema,
  SYSTEM_PROMPT,
  parseCategoryAnswer,
  userMessage,
} from './prompt.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** The SDK, loaded when a workspace first uses the provider (a process that never asks it never pays for it). */
export const loadAnthropicSdk = () => import('@anthropic-ai/sdk');

export const askAnthropic: AiAdapter = async ({ text, model, apiKey, baseUrl, signal, timeoutMs }) => {
  const { default: Anthropic } = await loadAnthropicSdk();
  const client: AnthropicClient = new Anthropic({
    apiKey,
    baseURL: baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
    defaultHeaders: { 'x-api-key': apiKey },
  });
  const message = await client.messages.create(
    {
      model,
      max_tokens: AI_MAX_OUTPUT_TOKENS,
      system: SYSTEM_PROMPT,
      messages: [{ role: 'user', content: userMessage(text) }],
      tools: [
        {
          name: ANSWER_NAME,
          description: 'Record the one category of the reply.',
          input_schema: categoryJsonSchema(),
        },
      ],
      tool_choice: { type: 'tool', name: ANSWER_NAME },
    },
    { signal },
  );
  const uses = message.content.filter((block) => block.type === 'tool_use');
  if (uses.length !== 1 || uses[0]?.name !== ANSWER_NAME) return null;
  return parseCategoryAnswer(uses[0].input);
};
