#!/usr/bin/env node
// The `sift` executable as npm links it. It is a plain file committed in the repository (not the build's
// dist/bin.js) because npm links a workspace's bins before `prepare` builds it, and silently skips a bin whose file
// does not exist yet: `npx sift` then fails with "could not determine executable to run".
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = new URL("../dist/bin.js", import.meta.url)
if (existsSync(fileURLToPath(built))) {
  await import(built.href)
} else {
  process.stderr.write(
    `error: INTERNAL_ERROR: sift is not built yet (${fileURLToPath(built)} is missing); ` +
      "run `npm run build` (or `npm install`) at the repository root, then try again\n"
  )
  process.exitCode = 1
}
