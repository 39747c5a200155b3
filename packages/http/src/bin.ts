#!/usr/bin/env node
/** The `sift` executable. */
import { Effect } from "effect"
import { run } from "./Cli.js"

Effect.runPromise(run(process.argv)).then((code) => {
  process.exitCode = code
})
