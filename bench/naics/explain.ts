/**
 * Shows why the classifier ranks a company's codes as it does: the business-model cues read from the site, the top
 * scores, and the example phrases the site matched for each of those codes and for the wanted one (with the weight of
 * the statement each was read in; `c`: in a customer phrase). For dev and tuning-batch companies only (held-out ones
 * are refused, so they are never tuned on).
 *
 * Run: `npx tsx bench/naics/explain.ts "<company name>" [...]`
 */
import * as CompanyEvidence from "../../packages/core/src/CompanyEvidence.js"
import * as NaicsClassifier from "../../packages/core/src/NaicsClassifier.js"
import { adjustments, modelOf } from "../../packages/core/src/internal/naics/activity.js"
import { phraseMatches, profileIndex } from "../../packages/core/src/internal/naics/profiles.js"
import { statementsOf } from "../../packages/core/src/internal/naics/statements.js"
import { companies } from "./companies.js"
import { pages } from "./site.js"
import { tuningBatches } from "./batches.js"

for (const name of process.argv.slice(2)) {
  const at = companies.findIndex((c) => c.name === name)
  const company = at < 0 ? tuningBatches.flatMap(([, batch]) => batch).find((c) => c.name === name) : companies[at]
  if (company === undefined) throw new Error(`no company ${name}`)
  if (at % 3 === 2) throw new Error(`${name} is held out`)
  const evidence = { domain: company.domain, pages: [...pages(company)].map(([path, html]) => CompanyEvidence.fromHtml(`https://${company.domain}${path}`, html)) }
  const ranked = NaicsClassifier.classify(evidence, { maxResults: 6 })
  console.log(`${name} (want ${company.code})`, JSON.stringify(modelOf(evidence)), JSON.stringify([...adjustments(evidence).bonus]))
  const matched = phrasesMatched(evidence)
  for (const r of ranked) console.log(`  ${r.code} ${r.score.toFixed(2)} ${r.confidence} ${r.name}${said(matched, r.code)}`)
  if (!ranked.some((r) => r.code === company.code)) console.log(`  wanted ${company.code}${said(matched, company.code)}`)
}

/** Each code's example phrases found in the evidence's statements, as `phrase@weight` (`c`: in a customer phrase). */
function phrasesMatched(evidence: CompanyEvidence.CompanyEvidence): Map<string, Set<string>> {
  const index = profileIndex()
  const found = new Map<string, Set<string>>()
  for (const s of statementsOf(evidence)) {
    for (const { code, phrase, start } of phraseMatches(index, s.words)) {
      const at = index.profiles[code]!.industry.code
      found.set(at, (found.get(at) ?? new Set()).add(`${phrase.join(" ")}@${s.weight.toFixed(1)}${s.customer[start] ? "c" : ""}`))
    }
  }
  return found
}

function said(matched: Map<string, Set<string>>, code: string): string {
  const phrases = matched.get(code)
  return phrases === undefined ? "" : ` [${[...phrases].join("; ")}]`
}
