/**
 * Mistral through its official SDK (`@mistralai/mistralai`): chat completion with
 * `response_format: json_schema` (strict), the category an enum. One attempt (`retryConfig: none`).
 */
import type { Mistral as MistralClient } from '@mistralai/mistralai';
import type { AiAdapter } from './ai-adapter.js';
import {
  AI_MAX_OUTPUT_TOKENS,
  ANSWER_NAME,
  SYSTEM_PROMPT,
  categoryJsonSchema,
  parseCategoryAnswer,
  userMessage,
} from './prompt.js';

export const MISTRAL_DEFAULT_BASE_URL = 'https://api.mistral.ai';

/** The SDK, loaded when a workspace first uses the provider (a process that never asks it never pays for it). */
export const loadMistralSdk = () => import('@mistralai/mistralai');

export const askMistral: AiAdapter = async ({ text, model, apiKey, baseUrl, signal, timeoutMs }) => {
  const { Mistral } = await loadMistralSdk();
  const client: MistralClient = new Mistral({
    apiKey,
    serverURL: baseUrl ?? MISTRAL_DEFAULT_BASE_URL,
    timeoutMs,
    retryConfig: { strategy: 'none' },
  });
  const completion = await client.chat.complete(
    {
      model,
      temperature: 0,
      maxTokens: AI_MAX_OUTPUT_TOKENS,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: userMessage(text) },
      ],
      responseFormat: {
        type: 'json_schema',
        jsonSchema: { name: ANSWER_NAME, schemaDefinition: categoryJsonSchema(), strict: true },
      },
    },
    { signal },
  );
  const content = completion.choices?.[0]?.message?.content;
  if (typeof content === 'string') return parseCategoryAnswer(content);
  if (!Array.isArray(content)) return null;
  const text_ = content.map((chunk) => (chunk.type === 'text' ? chunk.text : '')).join('');
  return parseCategoryAnswer(text_);
};
