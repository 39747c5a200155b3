#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node
// The allocator settings on the first line (glibc reads them only as a process starts, so they cannot be set from
// here): a dozen threads (V8's helpers, libuv's pool, PGlite's thread) each grew a malloc arena of their own, and the
// threshold glibc raises after each large free kept large buffers in the heaps, never returned: a 10,000-page batch's
// resident memory rose ~70 MB over its first thousands of pages, and peaked at 590-616 MB (bench/batch). With them:
// flat after the first thousand, peak ~500 MB, the same CPU per page. The Dockerfile and `npm start` set the same.
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
