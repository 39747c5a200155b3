/** Runs `bombChild.ts` in a fresh Node process and reads its one-line report. */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

/** One call for the child: `ParseDocument.parse` of a file, or a `Fetcher` GET. */
export type BombJob =
  | {
    readonly kind: "parse"
    readonly file: string
    readonly filename: string
    readonly options?: { readonly ocr?: boolean; readonly pdfStart?: number; readonly pdfEnd?: number }
  }
  | { readonly kind: "fetch"; readonly url: string }

/** How one call ended in the child, and its memory. */
export interface BombReport {
  readonly ok: boolean
  readonly errorCode?: string
  readonly message?: string
  readonly markdown?: string
  /** Resident bytes just before the first call. */
  readonly baseline: number
  /** Peak resident bytes of the child's life so far. */
  readonly peak: number
  /** `peak - baseline`: what this call, or one before it, cost at most. */
  readonly growth: number
  readonly ms: number
}

const child = fileURLToPath(new URL("./bombChild.ts", import.meta.url))
const root = fileURLToPath(new URL("../../../../../", import.meta.url))

/** Runs the jobs in one child; a child that dies (heap out of memory, a signal) rejects with its last stderr lines. */
export const runBombs = (jobs: ReadonlyArray<BombJob>, timeoutMs = 150_000): Promise<Array<BombReport>> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, ["--expose-gc", "--import", "tsx", child, JSON.stringify(jobs)], {
      cwd: root,
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024
    }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").pop() ?? ""
      if (error !== null || !line.startsWith("[")) {
        return reject(new Error(`the bomb child died (${error?.message.split("\n")[0] ?? "no report"}): ${stderr.trim().split("\n").slice(-5).join(" | ")}`))
      }
      resolve(JSON.parse(line) as Array<BombReport>)
    })
  })
