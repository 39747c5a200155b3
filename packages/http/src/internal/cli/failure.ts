import { Data } from "effect"

/** Exit codes of the CLI: documented in `sift --help` and docs/cli.md. */
export const ExitCode = {
  /** Something unexpected went wrong. */
  internal: 1,
  /** The command line or the request was invalid. */
  invalid: 2,
  /** The target site could not be scraped (not found, refused, blocked, too large). */
  website: 3,
  /** The deadline passed. */
  timeout: 4,
  /** The content cannot be converted. */
  content: 5
} as const

/** A failure the CLI reports on stderr with its error code, then exits with `exitCode`. */
export class CliFailure extends Data.TaggedError("CliFailure")<{
  readonly errorCode: string
  readonly message: string
  readonly exitCode: number
}> {}

/** Turns whatever a library call rejected with into a `CliFailure`. */
export const failure = (error: unknown): CliFailure => {
  const tagged = error as { _tag?: string; errorCode?: string; message?: string }
  const exitCode = tagged._tag === "InvalidRequest"
    ? ExitCode.invalid
    : tagged._tag === "WebsiteError"
    ? ExitCode.website
    : tagged._tag === "RequestTimeout"
    ? ExitCode.timeout
    : tagged._tag === "ContentError"
    ? ExitCode.content
    : ExitCode.internal
  return new CliFailure({
    errorCode: tagged.errorCode ?? "INTERNAL_ERROR",
    message: tagged.message ?? String(error),
    exitCode
  })
}
