/** Locates the benchmark corpora of `../shared/corpora`, unpacking them into `bench/.data/` on first use. */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const benchDir = dirname(fileURLToPath(import.meta.url))
const dataDir = join(benchDir, ".data")
const sharedCorpora = resolve(benchDir, "..", "..", "shared", "corpora")

/** The unpacked `extraction-dev` folder (html/NNNN.html, evaldata.json); exits cleanly when the corpus is absent. */
export const extractionCorpus = (): string => {
  const dir = join(dataDir, "extraction-dev")
  if (existsSync(join(dir, "evaldata.json"))) return dir
  const archive = process.env.SIFT_CORPORA_DIR
    ? join(process.env.SIFT_CORPORA_DIR, "extraction-dev.tar.gz")
    : join(sharedCorpora, "extraction-dev.tar.gz")
  if (!existsSync(archive)) {
    console.error(
      `The extraction corpus is missing: expected ${archive}.\n` +
        "It ships in the shared corpora beside the project (shared/corpora/extraction-dev.tar.gz); " +
        "set SIFT_CORPORA_DIR to the folder holding it."
    )
    process.exit(0)
  }
  mkdirSync(dataDir, { recursive: true })
  execFileSync("tar", ["xzf", archive, "-C", dataDir])
  return dir
}
