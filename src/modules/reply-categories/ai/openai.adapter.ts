/**
 * OpenAI through its official SDK (`openai`): Chat Completions with `response_format: json_schema`
 * (strict), the category an enum. No retries (the 10 s bound covers one attempt), the SDK's logging off
 * (it would otherwise follow `OPENAI_LOG`, whose debug level prints request bodies).
 */
import type OpenAIClient from 'openai';
import type { AiAdapter } from './ai-adapter.js';
import {
  AI_MAX_OUTPUT_TOKENS,
  ANSWER_NAME,
  categoryJsonSchema,
  SYSTEM_PROMPT,
  parseCategoryAnswer,
  userMessage,
} from './prompt.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The SDK, loaded when a workspace first uses the provider (a process that never asks it never pays for it). */
export const loadOpenAiSdk = () => import('openai');

export const askOpenAi: AiAdapter = async ({ text, model, apiKey, baseUrl, signal, timeoutMs }) => {
  const { default: OpenAI } = await loadOpenAiSdk();
  const client: OpenAIClient = new OpenAI({
    apiKey,
    baseURL: baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
  });
  const completion = await client.chat.completions.create(
    {
      model,
      max_completion_tokens: AI_MAX_OUTPUT_TOKENS,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: userMessage(text) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: ANSWER_NAME, strict: true, schema: categoryJsonSchema() },
      },
    },
    { signal },
  );
  const message = completion.choices?.[0]?.message;
  if (!message || message.refusal) return null;
  return parseCategoryAnswer(message.content);
};
