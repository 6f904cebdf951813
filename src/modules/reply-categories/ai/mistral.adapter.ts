/**
 * Mistral through its official SDK (`@mistralai/mistralai`): chat completion with
 * `response_format: json_schema` (strict), the category an enum. One attempt (`retryConfig: none`).
 */
import type { Mistral as MistralClient } from '@mistralai/mistralai';
import type { AiAdapter } from './ai-adapter.js';
import {
  ANSWER_NAME,
  SYSTEM_PROMPT,
  categoryJsonSchema,
  parseCategoryAnswer,
  userMessage,
} from './prompt.js';

export const MISTRAL_DEFAULT_BASE_URL = 'https://api.mistral.ai';

export const askMistral: AiAdapter = async ({ text, model, apiKey, baseUrl, signal, timeoutMs }) => {
  // Loaded when a workspace first uses the provider (see openai.adapter.ts).
  const { Mistral } = await import('@mistralai/mistralai');
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
