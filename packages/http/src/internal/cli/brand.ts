/**
 * `sift brand DOMAIN`: a brand read from its site in this process (core's `Brand`: the Fetcher and, when the page is
 * drawn by script, a browser, both configured from the environment), or by a server with `--api URL --key KEY`
 * (`POST /v1/brand/retrieve`, 10 credits there). Embedded, logo and backdrop URLs are the images' addresses on the
 * site (nothing is hosted); from a server they are its `/v1/assets/` URLs.
 */
import { Args, Command, Options } from "@effect/cli"
import { CompanyResolver, Fetcher, Renderer } from "@sift/core"
import * as Brand from "@sift/core/Brand"
import { Console, Effect, Layer, Option } from "effect"
import { apiOf, apiOptions, call } from "./batch.js"
import { CliFailure, ExitCode, failure } from "./failure.js"

const domain = Args.text({ name: "DOMAIN" }).pipe(Args.withDescription("The brand's domain (example.com), or a URL to read only that page"))
const timeout = Options.integer("timeout").pipe(Options.optional, Options.withDescription("Total deadline in milliseconds (default 30000)"))
const fast = Options.boolean("fast").pipe(Options.withDescription("maxSpeed: fewer images, no rendering"))

/** The target of the argument: a domain's home page, or a URL (with a path, a port or an IP host) read as given. */
const targetOf = (text: string): Effect.Effect<Brand.Target, CliFailure> => {
  const target = CompanyResolver.targetOf(text)
  return target === undefined
    ? Effect.fail(new CliFailure({ errorCode: "INPUT_VALIDATION_ERROR", message: `DOMAIN: must be a domain or an http(s) URL, got ${text}`, exitCode: ExitCode.invalid }))
    : Effect.succeed(target.url === undefined ? { domain: target.domain } : { domain: target.domain, url: target.url })
}

/** The brand as JSON: the asset hashes are the server's business; the URLs are the site's. */
const printable = (brand: Brand.Brand) => ({
  ...brand,
  logos: brand.logos.map(({ asset: _asset, ...logo }) => logo),
  backdrops: brand.backdrops.map(({ asset: _asset, ...backdrop }) => backdrop)
})

/** `sift brand DOMAIN`: prints the brand as JSON (the `brand` member of POST /brand/retrieve). */
export const brandCommand = Command.make("brand", { domain, timeout, fast, ...apiOptions }, (options) =>
  Effect.gen(function*() {
    const target = yield* targetOf(options.domain)
    const api = yield* apiOf(options)
    const timeoutMs = Option.getOrUndefined(options.timeout)
    const brand = api === undefined
      ? printable((yield* Brand.retrieve(target, { ...(timeoutMs === undefined ? {} : { timeoutMs }), maxSpeed: options.fast }).pipe(
        Effect.provide(Layer.merge(Fetcher.layerConfig, Renderer.layerConfig)),
        Effect.mapError(failure)
      )).brand)
      : (yield* call(api, "POST", "/brand/retrieve", {
        body: {
          ...(target.url === undefined ? { type: "by_domain", domain: target.domain } : { type: "by_direct_url", direct_url: target.url }),
          ...(timeoutMs === undefined ? {} : { timeoutOpts: { milliseconds: timeoutMs } }),
          ...(options.fast && target.url === undefined ? { maxSpeed: true } : {})
        }
      })).brand
    yield* Console.log(JSON.stringify(brand, null, 2))
  })).pipe(Command.withDescription(
    "Read a company's brand from its own site: name, description, slogan, logos (SVG first, with type, light/dark mode, size " +
      "and colors), brand colors, backdrops, social profiles, key links, email, phone, address, language, industries, stock " +
      "and headcount where stated. Prints JSON. Private and loopback addresses are refused unless SIFT_ALLOW_PRIVATE_TARGETS=true. " +
      "With --api URL --key KEY (or SIFT_API_URL and SIFT_API_KEY) the server reads it (POST /v1/brand/retrieve, 10 credits)."
  ))
