/**
 * Google (Gemini API) through its official SDK (`@google/genai`): `generateContent` with
 * `responseMimeType: application/json` and a response schema whose category is an enum. Always the
 * Gemini API with the key (never Vertex AI, whatever `GOOGLE_GENAI_USE_VERTEXAI` says), one attempt.
 */
import type { GoogleGenAI as GoogleClient } from '@google/genai';
import { REPLY_CATEGORIES } from '../../threads/reply-category.js';
import type { AiAdapter } from './ai-adapter.js';
import { isAiModelName } from '../../../config/ai-models.js';
import { AI_MAX_OUTPUT_TOKENS, SYSTEM_PROMPT, parseCategoryAnswer, userMessage } from './prompt.js';

export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

/** The SDK, loaded when a workspace first uses the provider (a process that never asks it never pays for it). */
export const loadGoogleSdk = () => import('@google/genai');

export const askGoogle: AiAdapter = async ({ text, model, apiKey, baseUrl, signal, timeoutMs }) => {
  // The model is a segment of the request path (`models/{model}:generateContent`), which the SDK does
  // not encode: a name like `%2e%2e/%2e%2e/admin#` would reach another path of the provider's host with
  // the operator's key. Only the allowed shape passes, and it travels as one encoded segment.
  if (!isAiModelName(model)) throw new Error('the model name is not of the allowed shape');
  const segment = encodeURIComponent(model);
  const { GoogleGenAI, Type } = await loadGoogleSdk();
  const client: GoogleClient = new GoogleGenAI({
    vertexai: false,
    apiKey,
    httpOptions: {
      baseUrl: baseUrl ?? GOOGLE_DEFAULT_BASE_URL,
      timeout: timeoutMs,
      retryOptions: { attempts: 1 },
      // Node's fetch as it is. Without one, the SDK wraps fetch in a dispatcher that looks for undici's
      // global dispatcher on globalThis, which it does not find under Jest's VM sandbox ("fetch
      // failed"); the undici timeouts that wrapper lifts (300 s) are moot under our 10 s bound.
      fetch: (input, init) => fetch(input, init),
    },
  });
  const response = await client.models.generateContent({
    model: segment,
    contents: [{ role: 'user', parts: [{ text: userMessage(text) }] }],
    config: {
      systemInstruction: SYSTEM_PROMPT,
      temperature: 0,
      maxOutputTokens: AI_MAX_OUTPUT_TOKENS,
      responseMimeType: 'application/json',
      responseSchema: {
        type: Type.OBJECT,
        properties: { category: { type: Type.STRING, enum: [...REPLY_CATEGORIES] } },
        required: ['category'],
      },
      abortSignal: signal,
    },
  });
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const answer = parts.map((part) => part.text ?? '').join('');
  return parseCategoryAnswer(answer);
};
