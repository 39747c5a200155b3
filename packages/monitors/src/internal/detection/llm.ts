/**
 * The optional LLM judge: an OpenAI-compatible chat-completions endpoint asked for JSON. Every answer is checked
 * member by member; a failed request, a timeout or a malformed answer gives the deterministic result instead, so
 * a model can never fail a run (off by default: `SIFT_MONITORS_LLM_URL` turns it on).
 */
import * as LanguageModel from "@sift/core/LanguageModel"
import { Effect } from "effect"
import type { Page, Verdict } from "./judge.js"
import { lineChanges, unifiedDiff } from "./lineDiff.js"

/** Where the model is: an OpenAI-compatible API base (e.g. `https://api.openai.com/v1`), model, key, timeout. */
export type LlmOptions = LanguageModel.Endpoint

/** One chat completion at temperature 0 in JSON mode (core's client); the message content parsed as a JSON object. */
const ask = (options: LlmOptions, system: string, user: unknown) =>
  LanguageModel.completeJson(options, [{ role: "system", content: system }, { role: "user", content: JSON.stringify(user) }])

const IMPORTANCE = new Set(["low", "medium", "high"])

/** A model's verdict, checked member by member; anything malformed throws (and the deterministic verdict is used). */
export const verdictOf = (answer: Record<string, unknown>, fallback: Verdict, urls: ReadonlyArray<string>): Verdict => {
  const confidence = Number(answer.confidence)
  if (typeof answer.relevant !== "boolean" || !(confidence >= 0 && confidence <= 1)) throw new Error("malformed verdict")
  const evidence = Array.isArray(answer.evidence)
    ? answer.evidence.flatMap((e: unknown) =>
      typeof e === "object" && e !== null
        ? [{ before: String((e as { before?: unknown }).before ?? ""), after: String((e as { after?: unknown }).after ?? ""), url: urls[0] }]
        : []
    )
    : []
  return {
    relevant: answer.relevant,
    confidence,
    importance: IMPORTANCE.has(String(answer.importance)) ? answer.importance as Verdict["importance"] : fallback.importance,
    evidence: evidence.length > 0 ? evidence.slice(0, 10) : fallback.evidence,
    title: typeof answer.title === "string" && answer.title !== "" ? answer.title.slice(0, 200) : fallback.title,
    summary: typeof answer.summary === "string" && answer.summary !== "" ? answer.summary.slice(0, 1000) : fallback.summary,
    matched_urls: answer.relevant ? [...urls] : []
  }
}

/** The value of `answer` when it has the JSON Schema `type`, else undefined. */
const typed = (value: unknown, type: unknown): unknown => {
  if (value === null || value === undefined) return undefined
  switch (type) {
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? value : undefined
    case "integer":
      return Number.isInteger(value) ? value : undefined
    case "boolean":
      return typeof value === "boolean" ? value : undefined
    case "string":
      return typeof value === "string" ? value : undefined
    case "array":
      return Array.isArray(value) ? value : undefined
    case "object":
      return typeof value === "object" && !Array.isArray(value) ? value : undefined
    default:
      return value
  }
}

/**
 * Extracted data from a model's answer: with a schema, each property the answer gives with the right type, the
 * deterministic value otherwise; without one, `summary` and `key_points` when well-formed.
 */
export const dataOf = (
  answer: Record<string, unknown>,
  schema: Readonly<Record<string, unknown>> | undefined,
  fallback: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const properties = schema?.properties
  if (typeof properties === "object" && properties !== null) {
    const data: Record<string, unknown> = {}
    for (const [name, definition] of Object.entries(properties as Record<string, { type?: unknown }>)) {
      data[name] = typed(answer[name], definition?.type) ?? fallback[name] ?? null
    }
    return data
  }
  const keyPoints = Array.isArray(answer.key_points) ? answer.key_points.filter((p): p is string => typeof p === "string") : []
  if (typeof answer.summary !== "string" || answer.summary === "") throw new Error("no summary")
  return { summary: answer.summary.slice(0, 500), key_points: keyPoints.slice(0, 10) }
}

const JUDGE_PROMPT = "You judge whether a change to a web page matters to a user's monitoring instructions. You get the " +
  "instructions and a unified diff of the page's text. Answer JSON: {relevant: boolean, confidence: number 0..1, " +
  "importance: \"low\"|\"medium\"|\"high\", title: string, summary: string, evidence: [{before: string, after: string}]}."
const EXTRACT_JUDGE_PROMPT = "You judge whether a change of data extracted from web pages matters to a user's monitoring " +
  "instructions. Answer JSON: {relevant: boolean, confidence: number 0..1, importance: \"low\"|\"medium\"|\"high\", " +
  "title: string, summary: string, evidence: [{before: string, after: string}]}."
const EXTRACT_PROMPT = "Extract structured data from the web pages for the user's instructions. Answer one JSON object: " +
  "with a JSON Schema given, its properties (null when not found); without, {summary: string, key_points: string[]}."

/** The model's verdict on a page change (sent as a unified diff, at most 20,000 characters), or the fallback. */
export const judgePage = (
  options: LlmOptions,
  input: { readonly instructions: string; readonly url: string; readonly before: string; readonly after: string },
  fallback: Verdict
): Effect.Effect<Verdict> =>
  ask(options, JUDGE_PROMPT, {
    instructions: input.instructions,
    url: input.url,
    diff: unifiedDiff(lineChanges(input.before, input.after)).slice(0, 20_000)
  }).pipe(
    Effect.flatMap((answer) => Effect.try(() => verdictOf(answer, fallback, [input.url]))),
    Effect.orElseSucceed(() => fallback)
  )

/** The model's extraction (each page's text cut to 10,000 characters), or the fallback. */
export const extract = (
  options: LlmOptions,
  input: { readonly instructions: string; readonly schema?: Readonly<Record<string, unknown>> | undefined; readonly pages: ReadonlyArray<Page> },
  fallback: Readonly<Record<string, unknown>>
): Effect.Effect<Readonly<Record<string, unknown>>> =>
  ask(options, EXTRACT_PROMPT, {
    instructions: input.instructions,
    schema: input.schema ?? null,
    pages: input.pages.slice(0, 20).map((p) => ({ url: p.url, title: p.title, text: p.text.slice(0, 10_000) }))
  }).pipe(
    Effect.flatMap((answer) => Effect.try(() => dataOf(answer, input.schema, fallback))),
    Effect.orElseSucceed(() => fallback)
  )

/** The model's verdict on changed extracted data, or the fallback. */
export const judgeExtract = (
  options: LlmOptions,
  input: {
    readonly instructions: string
    readonly before: Readonly<Record<string, unknown>>
    readonly after: Readonly<Record<string, unknown>>
    readonly urls: ReadonlyArray<string>
  },
  fallback: Verdict
): Effect.Effect<Verdict> =>
  ask(options, EXTRACT_JUDGE_PROMPT, { instructions: input.instructions, before: input.before, after: input.after }).pipe(
    Effect.flatMap((answer) => Effect.try(() => verdictOf(answer, fallback, input.urls))),
    Effect.orElseSucceed(() => fallback)
  )
