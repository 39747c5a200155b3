/**
 * `sift styleguide URL` and `sift fonts URL`: a page's design system or its fonts, read in Chromium in this process
 * (core's `Styleguide`, the browser from `SIFT_CHROMIUM_PATH` and the other browser settings), or by a server with
 * `--api URL --key KEY` (`GET /v1/web/styleguide`, `GET /v1/web/fonts`, 1 credit each there).
 */
import { Args, Command, Options } from "@effect/cli"
import { Renderer, Styleguide } from "@sift/core"
import { Console, Effect, Option } from "effect"
import { apiOf, apiOptions, call } from "./batch.js"
import { CliFailure, ExitCode, failure } from "./failure.js"

const target = Args.text({ name: "URL" }).pipe(
  Args.withDescription("The page to read (http:// or https://), or a domain (its https:// home page)")
)
const timeout = Options.integer("timeout").pipe(Options.optional, Options.withDescription("Total deadline in milliseconds (default 60000)"))
const json = Options.boolean("json").pipe(Options.withDescription("Print the GET /web/fonts body as JSON"))
const dark = Options.boolean("dark").pipe(Options.withDescription("Emulate prefers-color-scheme: dark"))

/** The URL of the argument: as given when it has a scheme, else the domain's https home page. */
const urlOf = (text: string): Effect.Effect<string, CliFailure> => {
  const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text.replace(/^\/+/, "")}/`
  try {
    const url = new URL(candidate)
    if (url.protocol === "http:" || url.protocol === "https:") return Effect.succeed(url.href)
  } catch {
    // Reported below.
  }
  return Effect.fail(new CliFailure({ errorCode: "INPUT_VALIDATION_ERROR", message: `URL: must be an http or https URL or a domain, got ${text}`, exitCode: ExitCode.invalid }))
}

/** The page's design read here, in a browser launched for the command. */
const readHere = (url: string, options: { readonly colorScheme?: "dark"; readonly timeout: Option.Option<number> }) =>
  Styleguide.read({ url, colorScheme: options.colorScheme, timeoutMs: Option.getOrUndefined(options.timeout) }).pipe(
    Effect.provide(Renderer.layerConfig),
    Effect.mapError(failure)
  )

/** `sift styleguide URL`: prints the styleguide as JSON (the `styleguide` member of GET /web/styleguide). */
export const styleguideCommand = Command.make("styleguide", { url: target, timeout, dark, ...apiOptions }, (options) =>
  Effect.gen(function*() {
    const url = yield* urlOf(options.url)
    const api = yield* apiOf(options)
    const styleguide = api === undefined
      ? (yield* readHere(url, { timeout: options.timeout, ...(options.dark ? { colorScheme: "dark" as const } : {}) })).styleguide
      : (yield* call(api, "GET", "/web/styleguide", {
        query: {
          directUrl: url,
          ...(options.dark ? { colorScheme: "dark" } : {}),
          ...(Option.isSome(options.timeout) ? { "timeoutOpts[milliseconds]": options.timeout.value } : {})
        }
      })).styleguide
    yield* Console.log(JSON.stringify(styleguide, null, 2))
  })).pipe(Command.withDescription(
    "Read a page's design system in Chromium: colors (accent, background, text), light or dark mode, typography (h1-h4, p), " +
      "spacing and shadow scales, primary/secondary/link buttons and a card with ready-to-use CSS, and font files (fontLinks). " +
      "Prints JSON. Private and loopback addresses are refused unless SIFT_ALLOW_PRIVATE_TARGETS=true. With --api URL --key KEY " +
      "(or SIFT_API_URL and SIFT_API_KEY) the server reads it (GET /v1/web/styleguide, 1 credit)."
  ))

/** `sift fonts URL`: prints the fonts of a page's text, one line each (or the GET /web/fonts body with --json). */
export const fontsCommand = Command.make("fonts", { url: target, timeout, json, ...apiOptions }, (options) =>
  Effect.gen(function*() {
    const url = yield* urlOf(options.url)
    const api = yield* apiOf(options)
    const body: { readonly fonts: ReadonlyArray<Styleguide.Font>; readonly fontLinks?: unknown } = api === undefined
      ? yield* Effect.map(readHere(url, { timeout: options.timeout }), (design) => ({
        fonts: design.fonts,
        ...(Object.keys(design.fontLinks).length === 0 ? {} : { fontLinks: design.fontLinks })
      }))
      : yield* call(api, "GET", "/web/fonts", {
        query: { directUrl: url, ...(Option.isSome(options.timeout) ? { "timeoutOpts[milliseconds]": options.timeout.value } : {}) }
      })
    if (options.json) return yield* Console.log(JSON.stringify({ fonts: body.fonts, ...(body.fontLinks === undefined ? {} : { fontLinks: body.fontLinks }) }, null, 2))
    for (const font of body.fonts) {
      yield* Console.log(
        `${font.font}  ${font.percent_words}% of words (${font.num_words}), ${font.percent_elements}% of elements (${font.num_elements})  ` +
          `uses ${font.uses.join(" ")}${font.fallbacks.length === 0 ? "" : `  fallbacks ${font.fallbacks.join(", ")}`}`
      )
    }
  })).pipe(Command.withDescription(
    "List the fonts of a page's text in Chromium, most words first: words and elements (counts and percent), the element " +
      "types using each, and its fallbacks; --json adds the font files (fontLinks). With --api URL --key KEY the server " +
      "reads it (GET /v1/web/fonts, 1 credit)."
  ))
