/**
 * Sift's own list of well-known third-party advertising and analytics hosts (registrable domains, or the one host of
 * a company that serves them; a request to a listed name or any name under it is refused when it leaves the page's
 * site). Written for Sift from public knowledge of what these services are, so it carries Sift's licence; operators
 * who want a longer list point `SIFT_BROWSER_BLOCKLIST_FILE` at one of their choosing (a hosts file or one name a line).
 */
export const builtInTrackerHosts: ReadonlyArray<string> = [
  // Advertising: exchanges, ad servers, retargeting, native ads.
  "doubleclick.net", "googlesyndication.com", "googleadservices.com", "adservice.google.com", "googletagservices.com",
  "amazon-adsystem.com", "adnxs.com", "rubiconproject.com", "pubmatic.com", "openx.net", "casalemedia.com",
  "criteo.com", "criteo.net", "adsrvr.org", "taboola.com", "outbrain.com", "adroll.com", "smartadserver.com",
  "adform.net", "serving-sys.com", "media.net", "teads.tv", "sharethrough.com", "yieldmo.com", "bidswitch.net",
  "mathtag.com", "moatads.com", "adsafeprotected.com", "doubleverify.com", "3lift.com", "indexww.com", "contextweb.com",
  "lijit.com", "sovrn.com", "spotxchange.com", "advertising.com", "yahoo-ads.com", "ads-twitter.com", "ads.linkedin.com",
  "ads.tiktok.com", "adcolony.com", "applovin.com", "zedo.com", "revcontent.com", "mgid.com", "propellerads.com",
  "popads.net", "exoclick.com", "juicyads.com", "trafficjunky.com",
  // Audience data and tag management used for tracking.
  "bluekai.com", "demdex.net", "krxd.net", "exelator.com", "rlcdn.com", "agkn.com", "crwdcntrl.net", "tapad.com",
  "adsymptotic.com", "everesttech.net", "omtrdc.net", "2o7.net", "tiqcdn.com", "ensighten.com", "mmtro.com",
  // Site analytics, session replay and pixels.
  "google-analytics.com", "googletagmanager.com", "analytics.google.com", "connect.facebook.net", "facebook.com/tr",
  "hotjar.com", "hotjar.io", "clarity.ms", "bat.bing.com", "scorecardresearch.com", "quantserve.com", "quantcount.com",
  "chartbeat.com", "chartbeat.net", "mixpanel.com", "heapanalytics.com", "amplitude.com", "segment.io", "cdn.segment.com",
  "fullstory.com", "mouseflow.com", "crazyegg.com", "luckyorange.com", "inspectlet.com", "smartlook.com", "statcounter.com",
  "mc.yandex.ru", "top100.ru", "hs-analytics.net", "snap.licdn.com", "analytics.tiktok.com", "ct.pinterest.com",
  "sc-static.net", "nr-data.net", "kissmetrics.io", "matomo.cloud", "parsely.com", "newrelic.com/rum", "pardot.com",
  "marketo.net", "mktoresp.com", "bizible.com", "6sc.co", "demandbase.com", "leadfeeder.com", "clicky.com", "getclicky.com"
].filter((host) => !host.includes("/"))
