#!/usr/bin/env node
// Makes sure the system packages Sift's tests and browser features need are present: Debian's Chromium (rendering,
// screenshots), tesseract (OCR), poppler's pdftoppm (rasterising scanned PDF pages for OCR) and LibreOffice headless
// (legacy .doc/.xls/.ppt files). As root it installs what is missing with apt-get; otherwise it says exactly what
// to install. PostgreSQL for the server-backed tests is handled by scripts/postgres.mjs.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"

const needs = [
  { name: "Chromium", pkg: "chromium", present: () => ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].some(existsSync) },
  { name: "tesseract", pkg: "tesseract-ocr", present: () => spawnSync("tesseract", ["--version"], { stdio: "ignore" }).status === 0 },
  { name: "pdftoppm", pkg: "poppler-utils", present: () => spawnSync("pdftoppm", ["-v"], { stdio: "ignore" }).status === 0 },
  ...["writer", "calc", "impress"].map((part) => ({
    name: `LibreOffice ${part}`,
    pkg: `libreoffice-${part}-nogui`,
    present: () => existsSync(`/usr/lib/libreoffice/program/lib${{ writer: "sw", calc: "sc", impress: "sd" }[part]}lo.so`)
  }))
]

const missing = needs.filter((need) => !need.present())
if (missing.length === 0) process.exit(0)

const pkgs = missing.map((need) => need.pkg)
const isRoot = typeof process.getuid === "function" && process.getuid() === 0
const hasApt = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0
if (!isRoot || !hasApt) {
  console.error(
    `Sift needs these system packages: ${pkgs.join(" ")}.\n` +
      `Install them (Debian/Ubuntu): sudo apt-get install -y ${pkgs.join(" ")}\n` +
      "Tests that need them are skipped until then."
  )
  process.exit(0)
}
console.error(`Installing ${pkgs.join(", ")} with apt-get ...`)
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
execFileSync("apt-get", ["update", "-qq"], { stdio: ["ignore", "ignore", "inherit"], env })
execFileSync("apt-get", ["install", "-y", "-qq", ...pkgs], { stdio: ["ignore", "ignore", "inherit"], env })
