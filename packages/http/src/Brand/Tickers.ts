/**
 * `by_ticker`: a small bundled table of stock tickers to company domains, written for Sift from the companies' own
 * public listing facts (the ticker and exchange each states on its investor-relations site). It covers about fifty
 * large companies listed on NASDAQ and NYSE; a ticker it does not know is searched for (503 `SEARCH_UNAVAILABLE`
 * without a search provider, 404 `NOT_FOUND` when the search finds no company site). An operator can
 * extend it with `SIFT_BRAND_TICKERS_FILE` (JSON: `[{ "ticker", "exchange", "domain" }]`).
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"

/** One listing. */
export interface Listing {
  readonly ticker: string
  readonly exchange: string
  readonly domain: string
}

const BUNDLED: ReadonlyArray<readonly [string, string, string]> = [
  ["AAPL", "NASDAQ", "apple.com"], ["MSFT", "NASDAQ", "microsoft.com"], ["GOOGL", "NASDAQ", "abc.xyz"], ["GOOG", "NASDAQ", "abc.xyz"],
  ["AMZN", "NASDAQ", "amazon.com"], ["META", "NASDAQ", "meta.com"], ["NVDA", "NASDAQ", "nvidia.com"], ["TSLA", "NASDAQ", "tesla.com"],
  ["NFLX", "NASDAQ", "netflix.com"], ["ADBE", "NASDAQ", "adobe.com"], ["INTC", "NASDAQ", "intel.com"], ["CSCO", "NASDAQ", "cisco.com"],
  ["PEP", "NASDAQ", "pepsico.com"], ["COST", "NASDAQ", "costco.com"], ["AVGO", "NASDAQ", "broadcom.com"], ["AMD", "NASDAQ", "amd.com"],
  ["QCOM", "NASDAQ", "qualcomm.com"], ["PYPL", "NASDAQ", "paypal.com"], ["SBUX", "NASDAQ", "starbucks.com"], ["ABNB", "NASDAQ", "airbnb.com"],
  ["ZM", "NASDAQ", "zoom.us"], ["SHOP", "NASDAQ", "shopify.com"], ["DDOG", "NASDAQ", "datadoghq.com"], ["TEAM", "NASDAQ", "atlassian.com"],
  ["IBM", "NYSE", "ibm.com"], ["ORCL", "NYSE", "oracle.com"], ["CRM", "NYSE", "salesforce.com"], ["V", "NYSE", "visa.com"],
  ["MA", "NYSE", "mastercard.com"], ["JPM", "NYSE", "jpmorganchase.com"], ["BAC", "NYSE", "bankofamerica.com"], ["WMT", "NYSE", "walmart.com"],
  ["KO", "NYSE", "coca-colacompany.com"], ["NKE", "NYSE", "nike.com"], ["DIS", "NYSE", "thewaltdisneycompany.com"], ["MCD", "NYSE", "mcdonalds.com"],
  ["HD", "NYSE", "homedepot.com"], ["PG", "NYSE", "pg.com"], ["JNJ", "NYSE", "jnj.com"], ["PFE", "NYSE", "pfizer.com"],
  ["XOM", "NYSE", "exxonmobil.com"], ["CVX", "NYSE", "chevron.com"], ["BA", "NYSE", "boeing.com"], ["GE", "NYSE", "ge.com"],
  ["T", "NYSE", "att.com"], ["VZ", "NYSE", "verizon.com"], ["UBER", "NYSE", "uber.com"], ["SNOW", "NYSE", "snowflake.com"],
  ["NET", "NYSE", "cloudflare.com"], ["SQ", "NYSE", "block.xyz"], ["XYZ", "NYSE", "block.xyz"], ["SPOT", "NYSE", "spotify.com"]
]

let table: Map<string, ReadonlyArray<Listing>> | undefined

const load = (): Map<string, ReadonlyArray<Listing>> => {
  if (table !== undefined) return table
  const listings: Array<Listing> = BUNDLED.map(([ticker, exchange, domain]) => ({ ticker, exchange, domain }))
  const file = process.env["SIFT_BRAND_TICKERS_FILE"]
  if (file !== undefined && file.trim() !== "") {
    // Bounded: a ticker file is a small table; past 8 MiB it is refused rather than parsed.
    const text = readFileSync(file, "utf8")
    if (text.length > 8 * 1024 * 1024) throw new Error(`SIFT_BRAND_TICKERS_FILE: ${file} is over 8 MiB`)
    const extra: unknown = JSON.parse(text)
    if (Array.isArray(extra)) {
      for (const item of extra) {
        if (typeof item?.ticker === "string" && typeof item?.domain === "string") {
          listings.push({ ticker: item.ticker.toUpperCase(), exchange: String(item.exchange ?? "").toUpperCase(), domain: item.domain.toLowerCase() })
        }
      }
    }
  }
  table = new Map()
  for (const listing of listings) table.set(listing.ticker, [...(table.get(listing.ticker) ?? []), listing])
  return table
}

/** The listing of a ticker on an exchange (default NASDAQ, as the SDK says; any exchange when only one lists it). */
export const find = (ticker: string, exchange?: string): Listing | undefined => {
  const listings = load().get(ticker.trim().toUpperCase()) ?? []
  const wanted = (exchange ?? "NASDAQ").trim().toUpperCase()
  return listings.find((l) => l.exchange === wanted) ?? (exchange === undefined && listings.length === 1 ? listings[0] : undefined)
}
