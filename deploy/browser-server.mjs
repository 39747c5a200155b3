#!/usr/bin/env node
// A Playwright browser server over Debian's Chromium, for SIFT_BROWSER_WS_ENDPOINT: `sift serve` processes connect to
// it (chromium.connect) instead of launching a browser of their own. Prints the websocket endpoint as one JSON line on
// stdout ({"wsEndpoint":"ws://..."}) and runs until SIGTERM/SIGINT.
//
// BROWSER_HOST (default 127.0.0.1; 0.0.0.0 in a container), BROWSER_PORT (default 0: a free port),
// BROWSER_WS_PATH (default a random path: anyone who knows the endpoint can drive the browser, so the path is its
// secret; set the same value in SIFT_BROWSER_WS_ENDPOINT), SIFT_CHROMIUM_PATH (default /usr/lib/chromium/chromium).
import { randomBytes } from "node:crypto"
import { chromium } from "playwright-core"

const server = await chromium.launchServer({
  executablePath: process.env.SIFT_CHROMIUM_PATH || "/usr/lib/chromium/chromium",
  host: process.env.BROWSER_HOST || "127.0.0.1",
  port: Number(process.env.BROWSER_PORT || 0),
  wsPath: process.env.BROWSER_WS_PATH || `/${randomBytes(16).toString("hex")}`,
  args: ["--disable-dev-shm-usage", "--no-sandbox"]
})
process.stdout.write(JSON.stringify({ wsEndpoint: server.wsEndpoint() }) + "\n")
const stop = () => server.close().then(() => process.exit(0), () => process.exit(1))
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
