/**
 * Shows why the classifier ranks a company's codes as it does: the business-model cues read from the site and the
 * top scores. For dev and tuning-batch companies only (held-out ones are refused, so they are never tuned on).
 *
 * Run: `npx tsx bench/naics/explain.ts "<company name>" [...]`
 */
import * as CompanyEvidence from "../../packages/core/src/CompanyEvidence.js"
import * as NaicsClassifier from "../../packages/core/src/NaicsClassifier.js"
import { adjustments, modelOf } from "../../packages/core/src/internal/naics/activity.js"
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
  for (const r of ranked) console.log(`  ${r.code} ${r.score.toFixed(2)} ${r.confidence} ${r.name}`)
}
