/**
 * The one client of an OpenAI-compatible chat-completions endpoint (`POST {baseUrl}/chat/completions`), used by the
 * NAICS re-ranker and the monitors' LLM judge: one completion at temperature 0, optionally in JSON mode, under a
 * timeout, with the answer's size bounded. Callers decide what a failure means (both fall back to their deterministic
 * result), so every failure is one error with a reason.
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"

/** Where the model is: an API base such as `https://api.openai.com/v1`, a model name, and an optional bearer key. */
export interface Endpoint {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey?: string | undefined
  readonly timeoutMs?: number | undefined
}

/** One message of the conversation. */
export interface Message {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** The request failed, timed out, answered an HTTP error, or its answer was not what was asked for. */
export class LanguageModelError extends Data.TaggedError("LanguageModelError")<{
  readonly reason: "Transport" | "Status" | "Answer"
  readonly detail: string
}> {}

/** An answer larger than this is refused unread: a completion is a few kilobytes. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024

const DEFAULT_TIMEOUT_MS = 30_000

/** The response body as text, refused past {@link MAX_ANSWER_BYTES}. */
const boundedText = async (response: Response): Promise<string> => {
  const declared = Number(response.headers.get("content-length") ?? 0)
  if (declared > MAX_ANSWER_BYTES) throw new LanguageModelError({ reason: "Answer", detail: `the answer declares ${declared} bytes` })
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel()
      throw new LanguageModelError({ reason: "Answer", detail: `the answer is larger than ${MAX_ANSWER_BYTES} bytes` })
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

/**
 * One chat completion at temperature 0: the first choice's message content. `json: true` asks for JSON mode
 * (`response_format: json_object`). The timeout is the endpoint's `timeoutMs`, else `defaultTimeoutMs`, else 30 s.
 */
export const complete = (
  endpoint: Endpoint,
  messages: ReadonlyArray<Message>,
  options: { readonly json?: boolean | undefined; readonly defaultTimeoutMs?: number | undefined } = {}
): Effect.Effect<string, LanguageModelError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(`${endpoint.baseUrl.replace(/\/$/, "")}/chat/completions`, {
        method: "POST",
        signal: AbortSignal.any([signal, AbortSignal.timeout(endpoint.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS)]),
        headers: {
          "content-type": "application/json",
          ...(endpoint.apiKey === undefined ? {} : { authorization: `Bearer ${endpoint.apiKey}` })
        },
        body: JSON.stringify({
          model: endpoint.model,
          temperature: 0,
          ...(options.json === true ? { response_format: { type: "json_object" } } : {}),
          messages
        })
      })
      if (!response.ok) {
        await response.body?.cancel()
        throw new LanguageModelError({ reason: "Status", detail: `the model answered HTTP ${response.status}` })
      }
      const body = JSON.parse(await boundedText(response)) as { choices?: ReadonlyArray<{ message?: { content?: unknown } }> }
      const content = body?.choices?.[0]?.message?.content
      if (typeof content !== "string") throw new LanguageModelError({ reason: "Answer", detail: "the answer has no message content" })
      return content
    },
    catch: (error) =>
      error instanceof LanguageModelError
        ? error
        : new LanguageModelError({
          reason: error instanceof SyntaxError ? "Answer" : "Transport",
          detail: error instanceof SyntaxError ? `the answer is not JSON: ${error.message}` : String((error as Error)?.message ?? error)
        })
  })

/** {@link complete} in JSON mode, the content parsed: a JSON object, or a `LanguageModelError` with reason `Answer`. */
export const completeJson = (
  endpoint: Endpoint,
  messages: ReadonlyArray<Message>,
  options: { readonly defaultTimeoutMs?: number | undefined } = {}
): Effect.Effect<Record<string, unknown>, LanguageModelError> =>
  Effect.flatMap(complete(endpoint, messages, { ...options, json: true }), (content) =>
    Effect.try({
      try: () => {
        const parsed: unknown = JSON.parse(content)
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("the answer is not a JSON object")
        return parsed as Record<string, unknown>
      },
      catch: (error) => new LanguageModelError({ reason: "Answer", detail: (error as Error).message })
    }))
