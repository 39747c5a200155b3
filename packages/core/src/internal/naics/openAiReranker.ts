/**
 * A NAICS re-ranker over an OpenAI-compatible chat completions endpoint. It sees the company's own words (title,
 * description, first headings) and the default's candidates, and answers with codes in order; any failure or an
 * unusable answer leaves the default order (an empty answer), so the endpoint can never break a classification.
 */
import { Effect } from "effect"
import type { CompanyEvidence } from "../../CompanyEvidence.js"

/** Where the model is. */
export interface OpenAiRerankerOptions {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey?: string
  readonly timeoutMs?: number
}

const summary = (evidence: CompanyEvidence): string =>
  evidence.pages.flatMap((p) => [p.title, p.description, ...p.headings.slice(0, 6).map((h) => h.text), p.text.slice(0, 1500)])
    .filter((x): x is string => x !== undefined && x !== "").join("\n").slice(0, 6000)

/** The re-rank function of the service. */
export const openAiRerank = (options: OpenAiRerankerOptions) =>
(
  evidence: CompanyEvidence,
  candidates: ReadonlyArray<{ readonly code: string; readonly name: string }>
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.tryPromise(async (signal) => {
    const url = `${options.baseUrl.replace(/\/$/, "")}/chat/completions`
    const prompt = `Company website (${evidence.domain}):\n${summary(evidence)}\n\nCandidate NAICS 2022 codes:\n` +
      candidates.map((c) => `${c.code} ${c.name}`).join("\n") +
      "\n\nClassify by what the company does for money (software sold to an industry is software; a holding company is not its subsidiaries' trade). Answer with the candidate codes only, best first, comma-separated."
    const response = await fetch(url, {
      method: "POST",
      signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
      headers: { "content-type": "application/json", ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }) },
      body: JSON.stringify({ model: options.model, temperature: 0, messages: [{ role: "user", content: prompt }] })
    })
    if (!response.ok) return []
    const body = (await response.json()) as { choices?: ReadonlyArray<{ message?: { content?: unknown } }> }
    const text = body.choices?.[0]?.message?.content
    return typeof text === "string" ? (text.match(/\b\d{6}\b/g) ?? []) : []
  }).pipe(Effect.orElseSucceed(() => []))
