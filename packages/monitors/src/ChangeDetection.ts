/**
 * Change detection of monitors (issue 9 item 3, decisions §7): pure comparisons of what two runs observed. Page targets
 * compare normalised main-content text (`exact`: a content hash, a unified diff and excerpts; never a change with an
 * empty diff); sitemap targets compare URL sets (exact counts, at most 500 listed each way); `semantic` asks a
 * `SemanticJudge` whether a change touches what the monitor's `instructions` care about. The judge's default is
 * deterministic (no network); an LLM provider may replace it, off by default.
 *
 * The monitor runner captures the observations (through `@sift/core`) and stores them; this module never fetches.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import * as Judge from "./internal/detection/judge.js"
import * as Llm from "./internal/detection/llm.js"
import * as Page from "./internal/detection/page.js"
import * as Sitemap from "./internal/detection/sitemap.js"
import * as Text from "./internal/detection/text.js"

/** Options of a page target that shape its text. */
export interface TextOptions {
  /** Collapse runs of spaces and blank lines, trim lines (decisions §7 `normalize_whitespace`; default true). */
  readonly normalizeWhitespace: boolean
}

/** A change of a page target (the page members of decisions §7's change record, plus a title and summary). */
export interface PageChange {
  readonly title: string
  readonly summary: string
  /** A unified diff (`---`/`+++` headers, `@@` hunks, 3 lines of context); never empty. */
  readonly diff: string
  readonly before_text_excerpt: string
  readonly after_text_excerpt: string
}

/** Rules of a sitemap target that select its URLs. */
export interface SitemapRules {
  /** RE2 patterns (unanchored, against the full URL); when given, a URL must match one. */
  readonly include?: ReadonlyArray<string> | undefined
  /** RE2 patterns; a URL matching one is left out (exclusion wins). */
  readonly exclude?: ReadonlyArray<string> | undefined
  /** At most this many URLs are kept (the first in sorted order); at most 10,000. */
  readonly max_urls?: number | undefined
}

/** A change of a sitemap target. */
export interface SitemapChange {
  readonly title: string
  readonly summary: string
  /** At most 500 each, sorted; the counts are exact. */
  readonly added_urls: ReadonlyArray<string>
  readonly removed_urls: ReadonlyArray<string>
  readonly added_url_count: number
  readonly removed_url_count: number
}

/** Evidence of a semantic change: what the text said before and after. */
export interface Evidence {
  readonly before: string
  readonly after: string
  readonly url?: string | undefined
}

/** A judge's verdict on a change. */
export interface Judgement {
  /** Whether the change touches what the instructions care about (before applying `confidence_threshold`). */
  readonly relevant: boolean
  /** 0..1: how sure the judge is that the change is relevant. */
  readonly confidence: number
  readonly importance: "low" | "medium" | "high"
  readonly evidence: ReadonlyArray<Evidence>
  readonly title: string
  readonly summary: string
  /** Pages whose content matched the instructions. */
  readonly matched_urls: ReadonlyArray<string>
}

/** One page an extract run analysed: its URL and main-content text (Markdown). */
export interface AnalysedPage {
  readonly url: string
  readonly title: string
  readonly text: string
}

/** Structured data of an extract target: per `schema`'s properties, or `{ summary, key_points }` without a schema. */
export type ExtractedData = Readonly<Record<string, unknown>>

/**
 * Judges semantic changes and extracts structured data. The default is deterministic; an LLM provider may replace it.
 *
 * @category services
 */
export class SemanticJudge extends Context.Tag("@sift/monitors/SemanticJudge")<SemanticJudge, {
  /** Whether a page text change matters to `instructions` (called only when the texts differ). */
  readonly judgePage: (input: {
    readonly instructions: string
    readonly url: string
    readonly before: string
    readonly after: string
  }) => Effect.Effect<Judgement>
  /** Structured data from the analysed pages, per `schema` (a JSON Schema object) or a default summary and key points. */
  readonly extract: (input: {
    readonly instructions: string
    readonly schema?: Readonly<Record<string, unknown>> | undefined
    readonly pages: ReadonlyArray<AnalysedPage>
  }) => Effect.Effect<ExtractedData>
  /** Whether the extracted data changed in a way `instructions` care about; compared field by field. */
  readonly judgeExtract: (input: {
    readonly instructions: string
    readonly before: ExtractedData
    readonly after: ExtractedData
    readonly urls: ReadonlyArray<string>
  }) => Effect.Effect<Judgement | undefined>
}>() {}

/** The normalised text of a page (see `TextOptions`). */
export const normalizeText = (text: string, options: TextOptions): string => Text.normalizeText(text, options.normalizeWhitespace)

/** SHA-256 (hex) of a normalised text. */
export const contentHash = (text: string): string => Text.contentHash(text)

/** The change between two normalised texts, or undefined when no line differs. */
export const comparePages = (before: string, after: string, url: string): PageChange | undefined => Page.comparePages(before, after, url)

/** The URLs a sitemap target keeps: sorted, de-duplicated, included and not excluded, at most `max_urls`. */
export const selectSitemapUrls = (urls: Iterable<string>, rules: SitemapRules): ReadonlyArray<string> => Sitemap.selectSitemapUrls(urls, rules)

/** Why an include/exclude pattern cannot be used, or undefined. */
export const sitemapPatternError = (pattern: string): string | undefined => Sitemap.sitemapPatternError(pattern)

/** The added and removed URLs of two URL sets, or undefined when equal. */
export const compareSitemaps = (before: ReadonlyArray<string>, after: ReadonlyArray<string>): SitemapChange | undefined =>
  Sitemap.compareSitemaps(before, after)

const deterministic: Context.Tag.Service<SemanticJudge> = {
  judgePage: (input) => Effect.sync(() => Judge.judgePage(input)),
  extract: (input) => Effect.sync(() => Judge.extract(input)),
  judgeExtract: (input) => Effect.sync(() => Judge.judgeExtract(input))
}

/**
 * The deterministic judge (the default): words, values and sections of the changed lines against the instructions.
 *
 * @category layers
 */
export const layerDeterministic: Layer.Layer<SemanticJudge> = Layer.succeed(SemanticJudge, deterministic)

/** Options of the LLM judge: an OpenAI-compatible API base (e.g. `https://api.openai.com/v1`), model, key. */
export type LlmOptions = Llm.LlmOptions

/**
 * The judge asking an OpenAI-compatible model (off by default); any failure of the model falls back to the
 * deterministic judge for that call, so runs never fail because of it.
 *
 * @category layers
 */
export const layerLlm = (options: Llm.LlmOptions): Layer.Layer<SemanticJudge> =>
  Layer.succeed(SemanticJudge, {
    judgePage: (input) => Effect.flatMap(deterministic.judgePage(input), (fallback) => Llm.judgePage(options, input, fallback)),
    extract: (input) => Effect.flatMap(deterministic.extract(input), (fallback) => Llm.extract(options, input, fallback)),
    // Whether data changed is decided by equality, not by the model; the model only judges what changed.
    judgeExtract: (input) =>
      Effect.flatMap(deterministic.judgeExtract(input), (fallback) =>
        fallback === undefined ? Effect.succeed(undefined) : Llm.judgeExtract(options, input, fallback))
  })

/**
 * The judge from Sift's language model (`SIFT_LLM_URL`, `SIFT_LLM_MODEL`, `SIFT_LLM_API_KEY`, the settings every
 * model-using endpoint shares), or from `SIFT_MONITORS_LLM_URL` (with `SIFT_MONITORS_LLM_MODEL` and
 * `SIFT_MONITORS_LLM_API_KEY`) when monitors should ask another model; the deterministic judge when neither is set.
 *
 * @category layers
 */
export const layerConfig: Layer.Layer<SemanticJudge> = Layer.unwrapEffect(
  Config.option(Config.string("SIFT_MONITORS_LLM_URL")).pipe(
    Effect.flatMap((own) => {
      // The monitors' own settings, when given, apply together; otherwise the shared model's.
      const prefix = Option.isSome(own) ? "SIFT_MONITORS_LLM" : "SIFT_LLM"
      return Config.all({
        baseUrl: Config.option(Config.string(`${prefix}_URL`)),
        model: Config.string(`${prefix}_MODEL`).pipe(Config.withDefault("gpt-4o-mini")),
        apiKey: Config.option(Config.redacted(`${prefix}_API_KEY`))
      })
    })
  ).pipe(
    Effect.map(({ apiKey, baseUrl, model }) =>
      Option.match(baseUrl, {
        onNone: () => layerDeterministic,
        onSome: (url) => layerLlm({ baseUrl: url, model, ...(Option.isSome(apiKey) ? { apiKey: Redacted.value(apiKey.value) } : {}) })
      })),
    Effect.orElseSucceed(() => layerDeterministic)
  )
)
