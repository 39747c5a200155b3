/**
 * @sift/core: the Sift pipeline as a library. Node apps call `scrape(request)`; Effect apps compose the services.
 *
 * @since 0.1.0
 */

/** Scrapes one URL with a process-wide scraper configured from the environment. */
export { scrape } from "./Scraper.js"
/** Classifies a company (domain, URL or name) into NAICS 2022 codes. */
export { classifyNaics } from "./NaicsClassification.js"
/** Maps a site's URLs (sitemaps, feeds, host variants, link crawl). */
export { mapUrls } from "./UrlDiscovery.js"

export * as Actions from "./Actions.js"
export * as AddressGuard from "./AddressGuard.js"
export * as BlockDetection from "./BlockDetection.js"
export * as BrowserPool from "./BrowserPool.js"
export * as Cache from "./Cache.js"
export * as Charset from "./Charset.js"
export * as CompanyEvidence from "./CompanyEvidence.js"
export * as CompanyResolver from "./CompanyResolver.js"
export * as Crawler from "./Crawler.js"
export * as Convert from "./Convert.js"
export * as ContentFilter from "./ContentFilter.js"
export * as Deadline from "./Deadline.js"
export * as Errors from "./Errors.js"
export * as Fetcher from "./Fetcher.js"
export * as HostRules from "./HostRules.js"
export * as Html from "./Html.js"
export * as HtmlFormat from "./HtmlFormat.js"
export * as ImageEnrich from "./ImageEnrich.js"
export * as Images from "./Images.js"
export * as MainContent from "./MainContent.js"
export * as Markdown from "./Markdown.js"
export * as Metadata from "./Metadata.js"
export * as Naics from "./Naics.js"
export * as NaicsClassification from "./NaicsClassification.js"
export * as NaicsClassifier from "./NaicsClassifier.js"
export * as ParseDocument from "./ParseDocument.js"
export * as ParseRules from "./ParseRules.js"
export * as Pipeline from "./Pipeline.js"
export * as Products from "./Products.js"
export * as RenderPlan from "./RenderPlan.js"
export * as Renderer from "./Renderer.js"
export * as Scraper from "./Scraper.js"
export * as ScrapeRequest from "./ScrapeRequest.js"
export * as ScrapeResult from "./ScrapeResult.js"
export * as Screenshot from "./Screenshot.js"
export * as Sic from "./Sic.js"
export * as Styleguide from "./Styleguide.js"
export * as UrlDiscovery from "./UrlDiscovery.js"
export * as UrlIndex from "./UrlIndex.js"
export * as UrlNormal from "./UrlNormal.js"
export * as UrlSearch from "./UrlSearch.js"
