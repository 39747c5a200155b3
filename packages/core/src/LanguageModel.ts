/**
 * The one client of an OpenAI-compatible chat-completions endpoint (`POST {baseUrl}/chat/completions`), used by the
 * endpoints that may use a model (`SIFT_LLM_URL`: search query fan-out, and structured answers validated against a
 * requested JSON Schema with one repair), the NAICS re-ranker and the monitors' LLM judge: one completion at
 * temperature 0, optionally in JSON mode, under a timeout, with the answer's size bounded. Callers decide what a
 * failure means (most fall back to their deterministic result), so every failure is one error with a reason.
 *
 * @since 0.1.0
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { Config, type ConfigError, Context, Data, Duration, Effect, Layer, Option, Redacted } from "effect"

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

/**
 * The request failed (`Transport`), answered an HTTP error (`Status`), its answer was not what was asked for
 * (`Answer`: also an answer that broke the requested schema after the repair), the requested schema cannot be used
 * (`Schema`), the time or token budget ran out (`Budget`), or no model is configured (`Unconfigured`).
 */
export class LanguageModelError extends Data.TaggedError("LanguageModelError")<{
  readonly reason: "Transport" | "Status" | "Answer" | "Schema" | "Budget" | "Unconfigured"
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

/** What a completion asks for beyond the messages. */
interface CompletionOptions {
  readonly json?: boolean | undefined
  /** `response_format: json_schema` with this schema (takes precedence over `json`). */
  readonly schema?: { readonly name: string; readonly schema: object } | undefined
  readonly maxTokens?: number | undefined
  readonly defaultTimeoutMs?: number | undefined
}

/** One completion: the content and the tokens it took, as the server counted them (0 when it does not say). */
const completion = (
  endpoint: Endpoint,
  messages: ReadonlyArray<Message>,
  options: CompletionOptions
): Effect.Effect<{ readonly content: string; readonly tokens: number }, LanguageModelError> =>
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
          ...(options.schema !== undefined
            ? { response_format: { type: "json_schema", json_schema: { name: options.schema.name, schema: options.schema.schema } } }
            : options.json === true
            ? { response_format: { type: "json_object" } }
            : {}),
          ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
          messages
        })
      })
      if (!response.ok) {
        await response.body?.cancel()
        throw new LanguageModelError({ reason: "Status", detail: `the model answered HTTP ${response.status}` })
      }
      const body = JSON.parse(await boundedText(response)) as {
        choices?: ReadonlyArray<{ message?: { content?: unknown } }>
        usage?: { total_tokens?: unknown }
      }
      const content = body?.choices?.[0]?.message?.content
      if (typeof content !== "string") throw new LanguageModelError({ reason: "Answer", detail: "the answer has no message content" })
      const tokens = typeof body.usage?.total_tokens === "number" ? body.usage.total_tokens : 0
      return { content, tokens }
    },
    catch: (error) =>
      error instanceof LanguageModelError
        ? error
        : new LanguageModelError({
          reason: error instanceof SyntaxError ? "Answer" : "Transport",
          detail: error instanceof SyntaxError ? `the answer is not JSON: ${error.message}` : String((error as Error)?.message ?? error)
        })
  })

/**
 * One chat completion at temperature 0: the first choice's message content. `json: true` asks for JSON mode
 * (`response_format: json_object`). The timeout is the endpoint's `timeoutMs`, else `defaultTimeoutMs`, else 30 s.
 */
export const complete = (
  endpoint: Endpoint,
  messages: ReadonlyArray<Message>,
  options: { readonly json?: boolean | undefined; readonly defaultTimeoutMs?: number | undefined } = {}
): Effect.Effect<string, LanguageModelError> => Effect.map(completion(endpoint, messages, options), (answer) => answer.content)

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

/** Budgets of a structured completion: both bound the first answer and its repair together. */
export interface Budget {
  /** The time for everything, in ms (the rest of the request's deadline). */
  readonly timeoutMs: number
  /** Tokens for everything as the server counts them (prompt and answer); each call asks for at most what is left. */
  readonly maxTokens?: number | undefined
}

/** A requested schema larger than this (as JSON) is refused: it is sent to the model with every call. */
export const MAX_SCHEMA_BYTES = 64 * 1024

// Compiled validators by the schema's text: a request's schema is compiled once, however often it is asked for.
const validators = new Map<string, ValidateFunction>()
const ajv = new Ajv({ allErrors: false, strict: false, validateFormats: false })

/** The schema's validator, or why it cannot be used. */
export const validatorFor = (schema: object): ValidateFunction | string => {
  const text = JSON.stringify(schema)
  if (text.length > MAX_SCHEMA_BYTES) return `the schema is larger than ${MAX_SCHEMA_BYTES} bytes`
  const known = validators.get(text)
  if (known !== undefined) return known
  try {
    const validate = ajv.compile(schema)
    if (validators.size >= 256) validators.delete(validators.keys().next().value!)
    validators.set(text, validate)
    return validate
  } catch (error) {
    return `the schema cannot be compiled: ${(error as Error).message}`
  }
}

const describeErrors = (errors: ReadonlyArray<ErrorObject> | null | undefined): string =>
  (errors ?? []).slice(0, 5).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`).join("; ")

/** The answer as JSON that passes `validate`, or what is wrong with it. */
const check = (content: string, validate: ValidateFunction): { readonly value: unknown } | { readonly problem: string } => {
  let value: unknown
  try {
    value = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ""))
  } catch (error) {
    return { problem: `it is not JSON (${(error as Error).message})` }
  }
  return validate(value) ? { value } : { problem: `it does not match the schema: ${describeErrors(validate.errors)}` }
}

/**
 * A completion whose answer is JSON valid against `schema` (a JSON Schema, checked with ajv): asked for with
 * `response_format: json_schema`, validated, and, when it breaks the schema, asked once more with the problem named
 * (one repair). Everything runs within the budget's time (a model that hangs ends there with `Budget`) and tokens.
 */
export const completeStructured = (
  endpoint: Endpoint,
  messages: ReadonlyArray<Message>,
  schema: object,
  budget: Budget,
  options: { readonly name?: string | undefined } = {}
): Effect.Effect<unknown, LanguageModelError> => {
  const validate = validatorFor(schema)
  if (typeof validate === "string") return Effect.fail(new LanguageModelError({ reason: "Schema", detail: validate }))
  const format = { name: options.name ?? "answer", schema }
  const attempts = Effect.gen(function*() {
    let spent = 0
    const ask = (conversation: ReadonlyArray<Message>) => {
      const left = budget.maxTokens === undefined ? undefined : budget.maxTokens - spent
      if (left !== undefined && left <= 0) {
        return Effect.fail(new LanguageModelError({ reason: "Budget", detail: `the token budget (${budget.maxTokens}) is spent` }))
      }
      // The budget ends the whole exchange (`Budget`); the call's own timer only backs it up.
      const options = { schema: format, maxTokens: left, defaultTimeoutMs: budget.timeoutMs + 1_000 }
      return Effect.tap(
        completion({ ...endpoint, timeoutMs: undefined }, conversation, options),
        (answer) => Effect.sync(() => void (spent += answer.tokens))
      )
    }
    const first = yield* ask(messages)
    const checked = check(first.content, validate)
    if ("value" in checked) return checked.value
    const repair: ReadonlyArray<Message> = [
      ...messages,
      { role: "assistant", content: first.content.slice(0, 20_000) },
      { role: "user", content: `That answer cannot be used: ${checked.problem}. Answer again with only the JSON value, valid against this JSON Schema: ${JSON.stringify(schema)}` }
    ]
    const second = yield* ask(repair)
    const repaired = check(second.content, validate)
    if ("value" in repaired) return repaired.value
    return yield* new LanguageModelError({ reason: "Answer", detail: `the model's answer, repaired once, still breaks the schema: ${repaired.problem}` })
  })
  return Effect.timeoutFail(attempts, {
    duration: Duration.millis(Math.max(0, budget.timeoutMs)),
    onTimeout: () => new LanguageModelError({ reason: "Budget", detail: `the model did not answer within ${budget.timeoutMs} ms` })
  })
}

/** The configured model, if any: the service endpoints that may use a model ask for. @category services */
export class LanguageModel extends Context.Tag("@sift/core/LanguageModel")<LanguageModel, {
  /** The endpoint, when `SIFT_LLM_URL` is set. */
  readonly endpoint: Option.Option<Endpoint>
}>() {}

/** The message of a request that needs a model when none is configured: names the setting. */
export const UNCONFIGURED_DETAIL = "No language model is configured: set SIFT_LLM_URL (and SIFT_LLM_MODEL, SIFT_LLM_API_KEY) to an OpenAI-compatible server (see docs/providers.md)"

/** No model: endpoints take their deterministic path. */
export const layerNone: Layer.Layer<LanguageModel> = Layer.succeed(LanguageModel, { endpoint: Option.none() })

/** A model at this endpoint. */
export const layer = (endpoint: Endpoint): Layer.Layer<LanguageModel> => Layer.succeed(LanguageModel, { endpoint: Option.some(endpoint) })

/**
 * The model from `SIFT_LLM_URL` (an API base such as `http://127.0.0.1:8080/v1`), `SIFT_LLM_MODEL` (default
 * `gpt-4o-mini`) and `SIFT_LLM_API_KEY` (optional); none when the URL is unset.
 */
export const layerConfig: Layer.Layer<LanguageModel, ConfigError.ConfigError> = Layer.effect(
  LanguageModel,
  Effect.map(
    Config.all({
      baseUrl: Config.option(Config.string("SIFT_LLM_URL")),
      model: Config.string("SIFT_LLM_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
      apiKey: Config.option(Config.redacted("SIFT_LLM_API_KEY"))
    }),
    (config) => ({
      endpoint: Option.map(config.baseUrl, (baseUrl): Endpoint => ({
        baseUrl,
        model: config.model,
        apiKey: Option.getOrUndefined(Option.map(config.apiKey, Redacted.value))
      }))
    })
  )
)
