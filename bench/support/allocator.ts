/**
 * The allocator settings `sift serve` starts with: the environment assignments on the first line of its executable
 * (packages/http/bin/sift.js, `#!/usr/bin/env -S NAME=value ... node`; the file says why). Benches that measure the
 * server's memory start their processes with them, as `npx sift`, `npm start` and the Dockerfile do.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** `NAME=value` pairs from a `#!/usr/bin/env -S ...` line, in order. */
export const shebangEnv = (firstLine: string): Record<string, string> =>
  Object.fromEntries(firstLine.replace(/^#!\S+\s+-S\s+/, "").split(/\s+/).flatMap((word) => {
    const found = word.match(/^([A-Z_][A-Z0-9_]*)=(\S*)$/)
    return found === null ? [] : [[found[1]!, found[2]!] as const]
  }))

/** The settings, read from the executable's first line (when called: bench/batch's compiled copy redefines its URL). */
export const allocatorEnv = (): Record<string, string> =>
  shebangEnv(readFileSync(fileURLToPath(new URL("../../packages/http/bin/sift.js", import.meta.url)), "utf8").split("\n")[0]!)
