/**
 * Image analysis decodes each image once into a bounded working copy: the size reported is the image's own, not the
 * copy's, and the same picture at another size (or in another format) hashes within the visual dedupe distance.
 */
import { describe, expect, it } from "@effect/vitest"
import sharp from "sharp"
import { VISUAL_DISTANCE } from "../src/ImageEnrich.js"
import { analyze, hashDistance } from "../src/internal/images/analysis.js"

const picture = (width: number, height: number) => {
  const data = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3
      data[i] = Math.round((x / width) * 255)
      data[i + 1] = Math.round((y / height) * 255)
      data[i + 2] = Math.hypot(x / width - 0.5, y / height - 0.5) < 0.3 ? 230 : 20
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
}

describe("image analysis", () => {
  it("reports the real size of images larger than the working copy, and hashes one picture alike at any size", async () => {
    const large = (await analyze(await picture(3000, 2000).png().toBuffer()))!
    const small = (await analyze(await picture(600, 400).png().toBuffer()))!
    const photo = (await analyze(await picture(3000, 2000).jpeg({ quality: 90 }).toBuffer()))!
    expect(large).toMatchObject({ format: "png", width: 3000, height: 2000 })
    expect(photo).toMatchObject({ format: "jpeg", width: 3000, height: 2000 })
    expect(small).toMatchObject({ width: 600, height: 400 })
    expect(hashDistance(large.hash, small.hash)).toBeLessThanOrEqual(VISUAL_DISTANCE)
    expect(hashDistance(large.hash, photo.hash)).toBeLessThanOrEqual(VISUAL_DISTANCE)
  })

  it("keeps the exact colours of flat artwork up to 1024 pixels a side", async () => {
    const flag = await sharp({ create: { width: 900, height: 600, channels: 3, background: "#ffffff" } })
      .composite([{ input: { create: { width: 300, height: 600, channels: 3, background: "#0055a4" } }, left: 0, top: 0 },
        { input: { create: { width: 300, height: 600, channels: 3, background: "#ef4135" } }, left: 600, top: 0 }])
      .png().toBuffer()
    expect(await analyze(flag)).toMatchObject({ width: 900, height: 600, colours: 3, topColourShare: 1, transparency: 0 })
  })
})
