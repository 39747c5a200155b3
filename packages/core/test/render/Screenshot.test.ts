import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Exit } from "effect"
import sharp from "sharp"
import * as Pipeline from "../../src/Pipeline.js"
import * as Screenshot from "../../src/Screenshot.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

// Real Chromium renders a page with a red block at a known place; the screenshot's pixels are checked.
const page = `<!doctype html><html><head><style>
html, body { margin: 0; background: #ffffff; }
#red { position: absolute; left: 100px; top: 50px; width: 200px; height: 120px; background: #ff0000; }
#blue { position: absolute; left: 40px; top: 1500px; width: 300px; height: 100px; background: #0000ff; }
#tall { height: 2000px; }
</style></head><body><div id="tall"></div><div id="red"></div><div id="blue"></div><p>Screenshot fixture</p></body></html>`

let site: FixtureSite.Site
let runtime: RenderRuntime.RenderRuntime

beforeAll(async () => {
  site = await FixtureSite.start({ "/": FixtureSite.html(page) })
  runtime = RenderRuntime.make()
}, 30_000)

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

const shoot = async (input: Record<string, unknown>) => {
  const result = await runtime.runPromise(Pipeline.scrape({ url: `${site.url}/`, formats: { screenshot: true }, ...input }))
  const decoded = Screenshot.fromDataUrl(result.screenshot.data!)!
  const { data, info } = await sharp(decoded.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const rgb = (x: number, y: number) => {
    const i = (y * info.width + x) * info.channels
    return [data[i]!, data[i + 1]!, data[i + 2]!]
  }
  return { result, contentType: decoded.contentType, format: info.format, width: info.width, height: info.height, rgb }
}

const isColour = (actual: Array<number>, expected: Array<number>) => actual.every((value, i) => Math.abs(value - expected[i]!) <= 16)
const RED = [255, 0, 0]
const WHITE = [255, 255, 255]
const BLUE = [0, 0, 255]

describe("screenshots in Chromium", { timeout: 60_000 }, () => {
  it("the viewport screenshot has the viewport's size and red pixels exactly where the div is", async () => {
    const shot = await shoot({ sharedParams: { viewport: { width: 800, height: 600 } } })
    expect(shot.contentType).toBe("image/png")
    expect([shot.width, shot.height]).toEqual([800, 600])
    expect(isColour(shot.rgb(110, 60), RED)).toBe(true)
    expect(isColour(shot.rgb(295, 165), RED)).toBe(true)
    expect(isColour(shot.rgb(95, 60), WHITE)).toBe(true)
    expect(isColour(shot.rgb(305, 60), WHITE)).toBe(true)
    expect(isColour(shot.rgb(200, 175), WHITE)).toBe(true)
    expect(shot.result.screenshot.requested).toBe(true)
  })

  it("a selector captures just that element", async () => {
    const shot = await shoot({ sharedParams: { viewport: { width: 800, height: 600 } }, screenshotParams: { area: { selector: "#red" } } })
    expect([shot.width, shot.height]).toEqual([200, 120])
    expect(isColour(shot.rgb(0, 0), RED) && isColour(shot.rgb(199, 119), RED) && isColour(shot.rgb(100, 60), RED)).toBe(true)
  })

  it("fullPage reaches below the fold; a rectangle is cut from the page", async () => {
    const full = await shoot({ sharedParams: { viewport: { width: 800, height: 600 } }, screenshotParams: { area: "fullPage", format: "jpeg" } })
    expect(full.contentType).toBe("image/jpeg")
    expect(full.width).toBe(800)
    expect(full.height).toBeGreaterThanOrEqual(2000)
    expect(isColour(full.rgb(100, 1550), BLUE)).toBe(true)
    const rectangle = await shoot({ sharedParams: { viewport: { width: 800, height: 600 } }, screenshotParams: { area: { x: 50, y: 20, width: 100, height: 200 }, format: "webp" } })
    expect(rectangle.contentType).toBe("image/webp")
    expect([rectangle.width, rectangle.height]).toEqual([100, 200])
    expect(isColour(rectangle.rgb(5, 5), WHITE)).toBe(true)
    expect(isColour(rectangle.rgb(80, 100), RED)).toBe(true)
    expect(isColour(rectangle.rgb(40, 100), WHITE)).toBe(true)
    // Below the fold: the blue block at y 1500 on an 800x600 screen.
    const below = await shoot({ sharedParams: { viewport: { width: 800, height: 600 } }, screenshotParams: { area: { x: 20, y: 1480, width: 400, height: 150 } } })
    expect([below.width, below.height]).toEqual([400, 150])
    expect(isColour(below.rgb(10, 10), WHITE)).toBe(true)
    expect(isColour(below.rgb(100, 60), BLUE)).toBe(true)
    expect(isColour(below.rgb(390, 60), WHITE)).toBe(true)
  })

  it("a rectangle over 40 megapixels is refused before any capture; a missing element is refused", async () => {
    const over = await runtime.runPromiseExit(Pipeline.scrape({
      url: `${site.url}/`, formats: { screenshot: true }, screenshotParams: { area: { x: 0, y: 0, width: 8000, height: 5001 } }
    }))
    expect(Exit.isFailure(over) && over.cause._tag === "Fail" ? (over.cause.error as { errorCode: string }).errorCode : undefined).toBe("INPUT_VALIDATION_ERROR")
    const missing = await runtime.runPromiseExit(Pipeline.scrape({
      url: `${site.url}/`, formats: { screenshot: true }, screenshotParams: { area: { selector: "#nowhere" } }
    }))
    expect(Exit.isFailure(missing) && missing.cause._tag === "Fail" ? (missing.cause.error as { errorCode: string }).errorCode : undefined).toBe("INPUT_VALIDATION_ERROR")
  })
})

