/**
 * A NAICS re-ranker over an OpenAI-compatible chat completions endpoint. It sees the company's own words (title,
 * description, first headings) and the default's candidates, and answers with codes in order; any failure or an
 * unusable answer leaves the default order (an empty answer), so the endpoint can never break a classification.
 */
import { Effect } from "effect"
import type { CompanyEvidence } from "../../CompanyEvidence.js"
import * as LanguageModel from "../../LanguageModel.js"

/** Where the model is. */
export type OpenAiRerankerOptions = LanguageModel.Endpoint

const summary = (evidence: CompanyEvidence): string =>
  evidence.pages.flatMap((p) => [p.title, p.description, ...p.headings.slice(0, 6).map((h) => h.text), p.text.slice(0, 1500)])
    .filter((x): x is string => x !== undefined && x !== "").join("\n").slice(0, 6000)

/** The re-rank function of the service. */
export const openAiRerank = (options: OpenAiRerankerOptions) =>
(
  evidence: CompanyEvidence,
  candidates: ReadonlyArray<{ readonly code: string; readonly name: string }>
): Effect.Effect<ReadonlyArray<string>> => {
  const prompt = `Company website (${evidence.domain}):\n${summary(evidence)}\n\nCandidate NAICS 2022 codes:\n` +
    candidates.map((c) => `${c.code} ${c.name}`).join("\n") +
    "\n\nClassify by what the company does for money (software sold to an industry is software; a holding company is not its subsidiaries' trade). Answer with the candidate codes only, best first, comma-separated."
  return LanguageModel.complete(options, [{ role: "user", content: prompt }], { defaultTimeoutMs: 10_000 }).pipe(
    Effect.map((text): ReadonlyArray<string> => text.match(/\b\d{6}\b/g) ?? []),
    Effect.orElseSucceed(() => [])
  )
}
