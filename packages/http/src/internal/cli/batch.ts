/**
 * `sift batch submit|list|status|results|cancel`: batches (wave2 §1) against a running server (`--api URL --key KEY`,
 * or SIFT_API_URL / SIFT_API_KEY), or embedded: the data directory's database opened in this process (as `sift keys`
 * does) and the batch driven here by `BatchRunner`, so `sift batch submit` runs to completion with its progress.
 * Embedded batches belong to the local organization `org_local` and cost no credits.
 *
 * Data goes to stdout (JSON, or NDJSON for results); progress and summaries to stderr: a cli-progress bar on a
 * terminal, plain lines otherwise.
 */
import { Args, Command, Options } from "@effect/cli"
import { BatchCredits, BatchErrors, BatchRunner, Batches, BatchSpec, migrations as batchMigrations } from "@sift/batch"
import { Cache, Fetcher } from "@sift/core"
import { BlobStore, JobQueue, type Migrations, Sql } from "@sift/store"
import { Deliveries } from "@sift/webhooks"
import cliProgress from "cli-progress"
import { Config, Console, Duration, Effect, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Admin from "../../Admin.js"
import * as Server from "../../Server.js"
import { CliFailure, ExitCode, failure } from "./failure.js"

/** The organization embedded batches belong to (no server, no keys: nobody else sees them). */
export const LOCAL_OWNER: Batches.Owner = { orgId: "org_local", keyId: undefined, plan: "scale" }

// ---------------------------------------------------------------------------------------------------------------
// Where batches live: a server's API, or this process.

/** `--api` and `--key`, shared by every command that can call a server. */
export const apiOptions = {
  api: Options.text("api").pipe(
    Options.optional,
    Options.withDescription("Call the Sift server at this URL (its root, with or without /v1; default SIFT_API_URL) instead of working embedded")
  ),
  key: Options.text("key").pipe(
    Options.optional,
    Options.withDescription("The API key for --api (default SIFT_API_KEY)")
  )
}

/** A server to call: its API root (ending `/v1`) and key. */
export interface Api {
  readonly root: string
  readonly key: string
}

const invalid = (message: string) => new CliFailure({ errorCode: "INPUT_VALIDATION_ERROR", message, exitCode: ExitCode.invalid })

const nonEmpty = (value: string | undefined) => value === undefined || value.trim() === "" ? undefined : value.trim()

/** The server named by `--api`/SIFT_API_URL with its key, or `undefined` for embedded work. */
export const apiOf = (options: { readonly api: Option.Option<string>; readonly key: Option.Option<string> }): Effect.Effect<Api | undefined, CliFailure> =>
  Effect.suspend(() => {
    const url = nonEmpty(Option.getOrUndefined(options.api)) ?? nonEmpty(process.env.SIFT_API_URL)
    if (url === undefined) return Effect.succeed(undefined)
    const key = nonEmpty(Option.getOrUndefined(options.key)) ?? nonEmpty(process.env.SIFT_API_KEY)
    if (key === undefined) {
      return Effect.fail(new CliFailure({ errorCode: "UNAUTHORIZED", message: `--api ${url} needs an API key: --key KEY or SIFT_API_KEY`, exitCode: ExitCode.invalid }))
    }
    if (!/^https?:\/\//i.test(url)) return Effect.fail(invalid(`--api must be an http:// or https:// URL, got ${url}`))
    return Effect.succeed({ root: `${url.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1`, key })
  })

/** The exit code of an API error: the website's, a deadline, the server's own, or the request's. */
const exitFor = (status: number, code: string): number =>
  code.startsWith("WEBSITE_") ? ExitCode.website : status === 408 ? ExitCode.timeout : status >= 500 ? ExitCode.internal : ExitCode.invalid

/** Calls the API: the JSON body of a 2xx answer, else a `CliFailure` with the answer's `error_code` and message. */
export const call = (
  api: Api,
  method: "GET" | "POST" | "DELETE",
  route: string,
  options: { readonly body?: unknown; readonly query?: Readonly<Record<string, string | number | undefined>>; readonly headers?: Readonly<Record<string, string>> } = {}
): Effect.Effect<any, CliFailure> =>
  Effect.tryPromise({
    try: async (signal) => {
      const query = new URLSearchParams(
        Object.entries(options.query ?? {}).flatMap(([k, v]): Array<[string, string]> => v === undefined ? [] : [[k, String(v)]])
      ).toString()
      const response = await fetch(`${api.root}${route}${query === "" ? "" : `?${query}`}`, {
        method,
        signal,
        headers: {
          authorization: `Bearer ${api.key}`,
          "user-agent": "sift-cli/0.1.0",
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
      })
      const text = await response.text()
      let body: any
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      return { status: response.status, body, text }
    },
    catch: (error) =>
      new CliFailure({ errorCode: "SERVICE_UNAVAILABLE", message: `${api.root} did not answer: ${error instanceof Error ? error.message : String(error)}`, exitCode: ExitCode.internal })
  }).pipe(Effect.flatMap(({ status, body, text }) => {
    if (status >= 200 && status < 300 && body !== undefined) return Effect.succeed(body)
    const code = typeof body?.error_code === "string" ? body.error_code : status >= 500 ? "INTERNAL_ERROR" : "HTTP_" + status
    const message = typeof body?.message === "string" ? body.message : `HTTP ${status}: ${text.slice(0, 200)}`
    return Effect.fail(new CliFailure({ errorCode: code, message, exitCode: exitFor(status, code) }))
  }))

/** What the commands do to batches, wherever they live. Answers are the API's wire shapes. */
interface Backend<R> {
  readonly submit: (body: BatchSpec.SubmitBody, idempotencyKey: string | undefined) => Effect.Effect<any, CliFailure, R>
  readonly get: (id: string) => Effect.Effect<any, CliFailure, R>
  readonly list: (filters: Batches.ListFilters) => Effect.Effect<any, CliFailure, R>
  readonly results: (id: string, cursor: string | undefined) => Effect.Effect<any, CliFailure, R>
  readonly cancel: (id: string) => Effect.Effect<any, CliFailure, R>
  /** Embedded: works the batch in this process until it settles (resuming one an earlier run left). */
  readonly drive: ((id: string) => Effect.Effect<void, CliFailure, R>) | undefined
}

/** What a command does with the batches, wherever they live. */
type Use<A> = <R>(backend: Backend<R>) => Effect.Effect<A, CliFailure, R>

const RESULTS_PAGE = 100

const remote = (api: Api): Backend<never> => ({
  submit: (body, idempotencyKey) =>
    call(api, "POST", "/batch/submit", { body, headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey } }),
  get: (id) => call(api, "GET", `/batch/${encodeURIComponent(id)}`),
  list: (filters) =>
    call(api, "GET", "/batch/list", {
      query: {
        limit: filters.limit,
        cursor: filters.cursor,
        status: filters.status,
        q: filters.q,
        tags: filters.tags === undefined || filters.tags.length === 0 ? undefined : filters.tags.join(",")
      }
    }),
  results: (id, cursor) => call(api, "GET", `/batch/${encodeURIComponent(id)}/results`, { query: { limit: RESULTS_PAGE, cursor } }),
  cancel: (id) => call(api, "POST", `/batch/${encodeURIComponent(id)}/cancel`),
  drive: undefined
})

/** Embedded batches cost nothing: there is no account to charge. */
const noCredits = Layer.succeed(BatchCredits.BatchCredits, {
  reserve: () => Effect.succeed({ remaining: Number.MAX_SAFE_INTEGER }),
  settle: () => Effect.void
})

/** Whether `dir` holds an embedded database (PGlite writes `PG_VERSION` when it initializes its files). */
const hasDatabase = (dir: string) => fs.existsSync(path.join(dir, Sql.pgdataDir, "PG_VERSION"))

/** Runs `use` on the batches of the data directory's database (or DATABASE_URL's), opened in this process. */
const embedded = <A>(
  migrations: Migrations.MigrationRecords,
  create: boolean,
  concurrency: number,
  use: Use<A>
): Effect.Effect<A, CliFailure> =>
  Effect.gen(function*() {
    const databaseUrl = yield* Config.option(Config.redacted("DATABASE_URL"))
    if (Option.isNone(databaseUrl) || Redacted.value(databaseUrl.value) === "") {
      const dataDir = yield* Config.string("SIFT_DATA_DIR").pipe(Config.withDefault("./.sift"))
      const server = yield* Effect.either(Admin.locate(dataDir))
      if (server._tag === "Left" || Option.isSome(server.right)) {
        return yield* new CliFailure({
          errorCode: "DATA_DIR_IN_USE",
          message: `a Sift server runs on the data directory ${path.resolve(dataDir)}; call it with --api URL --key KEY (or SIFT_API_URL and SIFT_API_KEY)`,
          exitCode: ExitCode.invalid
        })
      }
      if (!create && !hasDatabase(dataDir)) {
        return yield* new CliFailure({
          errorCode: "DATA_DIR_NOT_FOUND",
          message: `no Sift database in ${path.resolve(dataDir)} (SIFT_DATA_DIR, default ./.sift); nothing was created. ` +
            `Submit a batch here first, or call a server with --api URL --key KEY`,
          exitCode: ExitCode.invalid
        })
      }
    }
    const services = Layer.mergeAll(
      noCredits,
      BlobStore.layerSql,
      Cache.layerMemory(),
      JobQueue.layer({ queues: [Batches.QUEUE, Deliveries.QUEUE], supervise: false })
    ).pipe(
      Layer.provideMerge(Server.layerDatabase(migrations, "cli")),
      Layer.provideMerge(Fetcher.layerConfig)
    )
    const fileUrl = (id: string) => `/v1/files/${id}`
    // The package's refusals are the request's fault (exit 2); a database failure is INTERNAL_ERROR.
    const coded = <X, E, R>(effect: Effect.Effect<X, E, R>) =>
      Effect.mapError(effect, (error) =>
        error instanceof BatchErrors.BatchRefused
          ? new CliFailure({ errorCode: error.errorCode, message: error.message, exitCode: ExitCode.invalid })
          : failure(error))
    const backend = {
      submit: (body, idempotencyKey) => coded(Batches.submit(LOCAL_OWNER, body, { idempotencyKey, requestId: `req_cli_${Date.now().toString(36)}` })),
      get: (id) => coded(Batches.get(LOCAL_OWNER, id, fileUrl)),
      list: (filters) => coded(Batches.list(LOCAL_OWNER, filters, fileUrl)),
      results: (id, cursor) => coded(Batches.results(LOCAL_OWNER, id, { cursor, limit: RESULTS_PAGE })),
      cancel: (id) => coded(Batches.cancel(LOCAL_OWNER, id)),
      drive: (id) => coded(BatchRunner.drive(id, { concurrency, perHost: Math.min(concurrency, 4) }))
    } satisfies Backend<Layer.Layer.Success<typeof services>>
    return yield* use(backend).pipe(Effect.provide(services))
  }).pipe(
    Effect.scoped,
    // Opening the database or reading the configuration failed.
    Effect.mapError((error) => error instanceof CliFailure ? error : failure(error))
  )

/** Runs `use` on the server's batches when `--api` is given, else embedded. */
const withBackend = <A>(
  migrations: Migrations.MigrationRecords,
  options: { readonly api: Option.Option<string>; readonly key: Option.Option<string> },
  use: Use<A>,
  embeddedAs: { readonly create?: boolean; readonly concurrency?: number } = {}
): Effect.Effect<A, CliFailure> =>
  Effect.flatMap(apiOf(options), (api) =>
    api === undefined ? embedded(migrations, embeddedAs.create ?? false, embeddedAs.concurrency ?? 8, use) : use(remote(api)))

// ---------------------------------------------------------------------------------------------------------------
// Progress.

interface Progress {
  readonly succeeded: number
  readonly failed: number
  readonly pending: number
}

const isFinal = (status: string) => status === "completed" || status === "cancelled" || status === "failed"

/** The progress display: a bar on a terminal, a plain line at most every `everyMs` otherwise. Both on stderr. */
export const progressDisplay = (id: string, stream: NodeJS.WriteStream = process.stderr, everyMs = 2_000) => {
  const started = Date.now()
  let first: number | undefined
  const rate = (done: number) => {
    first ??= done
    const seconds = (Date.now() - started) / 1000
    return seconds <= 0 ? 0 : (done - first) / seconds
  }
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream,
      format: `${id} {status} {bar} {value}/{total} pages | {failed} failed | {pending} pending | {speed}/s | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50
    }, cliProgress.Presets.shades_classic)
    let running = false
    return {
      update: (status: string, p: Progress) => {
        const done = p.succeeded + p.failed
        if (!running) {
          bar.start(Math.max(1, done + p.pending), done, { status, failed: p.failed, pending: p.pending, speed: "0.0" })
          running = true
        }
        bar.setTotal(Math.max(1, done + p.pending))
        bar.update(done, { status, failed: p.failed, pending: p.pending, speed: rate(done).toFixed(1) })
      },
      stop: () => running && bar.stop()
    }
  }
  let last = 0
  let shown = ""
  return {
    update: (status: string, p: Progress) => {
      const done = p.succeeded + p.failed
      const speed = rate(done)
      const line = `${id} ${status}: ${p.succeeded} succeeded, ${p.failed} failed, ${p.pending} pending`
      // A line when something changed, at most every `everyMs`, and always the final state.
      if (line === shown || (!isFinal(status) && Date.now() - last < everyMs)) return
      last = Date.now()
      shown = line
      const eta = speed > 0 && p.pending > 0 ? `, ETA ${Math.ceil(p.pending / speed)} s` : ""
      stream.write(`${line}; ${speed.toFixed(1)} pages/s${eta}\n`)
    },
    stop: () => {}
  }
}

/** Polls the batch until it is final, showing its progress; embedded, works it meanwhile. Answers the final object. */
const watch = <R>(backend: Backend<R>, id: string): Effect.Effect<any, CliFailure, R> => {
  const display = progressDisplay(id)
  return Effect.gen(function*() {
    const poll: Effect.Effect<any, CliFailure, R> = Effect.flatMap(backend.get(id), (batch) =>
      Effect.sync(() => {
        display.update(batch.status, batch.progress)
        return batch
      }))
    const until = Effect.gen(function*() {
      while (true) {
        const batch = yield* poll
        if (isFinal(batch.status)) return batch
        yield* Effect.sleep(Duration.millis(500))
      }
    })
    if (backend.drive === undefined) return yield* until
    // Embedded: drive the batch (another process may hold its lease: then the drive leaves and this one retries once
    // it lapses) while the poll shows it.
    const drive = backend.drive
    const driving = Effect.forever(Effect.zipRight(drive(id), Effect.sleep(Duration.seconds(1))))
    return yield* Effect.raceFirst(until, Effect.zipRight(driving, Effect.never))
  }).pipe(Effect.ensuring(Effect.sync(display.stop)))
}

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

// ---------------------------------------------------------------------------------------------------------------
// Reading a URL list.

/** One line of a URL list: a URL, or a JSON object `{ url, itemId?, meta? }`. Blank lines and `#` comments skipped. */
export const readUrlList = (text: string, source: string): Effect.Effect<Array<{ url: string; itemId?: string; meta?: Record<string, unknown> }>, CliFailure> =>
  Effect.suspend(() => {
    const urls: Array<{ url: string; itemId?: string; meta?: Record<string, unknown> }> = []
    const lines = text.split(/\r?\n/)
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim()
      if (line === "" || line.startsWith("#")) continue
      if (line.startsWith("{")) {
        let parsed: unknown
        try {
          parsed = JSON.parse(line)
        } catch (error) {
          return Effect.fail(invalid(`${source} line ${i + 1}: not JSON (${error instanceof Error ? error.message : String(error)})`))
        }
        const decoded = Schema.decodeUnknownEither(BatchSpec.BatchUrl, { onExcessProperty: "error" })(parsed)
        if (decoded._tag === "Left") {
          return Effect.fail(invalid(`${source} line ${i + 1}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left).replace(/\s+/g, " ")}`))
        }
        urls.push(decoded.right as { url: string })
      } else if (/\s/.test(line)) {
        return Effect.fail(invalid(`${source} line ${i + 1}: one URL a line, or a JSON object { "url", "itemId", "meta" }`))
      } else {
        urls.push({ url: line })
      }
    }
    if (urls.length === 0) return Effect.fail(invalid(`${source} holds no URL`))
    return Effect.succeed(urls)
  })

const readSource = (file: string): Effect.Effect<string, CliFailure> =>
  Effect.tryPromise({
    try: async () => {
      if (file !== "-") return fs.readFileSync(file, "utf8")
      const chunks: Array<Buffer> = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString("utf8")
    },
    catch: (error) => invalid(`cannot read ${file === "-" ? "stdin" : file}: ${error instanceof Error ? error.message : String(error)}`)
  })

const decodeBody = (body: unknown): Effect.Effect<BatchSpec.SubmitBody, CliFailure> =>
  Effect.mapError(
    Schema.decodeUnknown(BatchSpec.SubmitBody, { onExcessProperty: "error", errors: "first" })(body),
    (error) => invalid(ParseResult.TreeFormatter.formatErrorSync(error).replace(/\s+/g, " "))
  )

// ---------------------------------------------------------------------------------------------------------------
// The commands.

const batchId = Args.text({ name: "ID" }).pipe(Args.withDescription("The batch id (batch_...)"))

const file = Args.text({ name: "FILE" }).pipe(
  Args.withDescription("One URL a line, or JSON lines { \"url\", \"itemId\", \"meta\" }; - reads stdin (options go before -)")
)
const format = Options.choice("format", ["markdown", "html"]).pipe(
  Options.withDefault("markdown" as const),
  Options.withDescription("What each page becomes (default markdown)")
)
const mainContent = Options.boolean("main-content").pipe(Options.withDescription("Keep only each page's main content"))
const includeHtml = Options.boolean("include-html").pipe(Options.withDescription("Markdown batches: also keep each page's HTML"))
const maxAge = Options.integer("max-age").pipe(
  Options.optional,
  Options.withDescription("Accept cached pages at most this many ms old (default one day; 0 reads every page fresh)")
)
const pageOptions = Options.text("options").pipe(
  Options.optional,
  Options.withDescription("Page options as the API's JSON (input.data.options, e.g. '{\"waitForMs\":1000,\"pdf\":{\"ocr\":true}}'); the flags above win")
)
const tags = Options.text("tag").pipe(Options.repeated, Options.withDescription("A tag for the batch (repeat for more; up to 20)"))
const webhook = Options.text("webhook").pipe(
  Options.optional,
  Options.withDescription("Signed completion event to this URL with durable retries (server only)")
)
const webhookDelays = Options.text("webhook-delays").pipe(
  Options.optional,
  Options.withDescription("Retry delays of --webhook in seconds, comma-separated (e.g. 60,600,3600; empty: no retries)")
)
const webhookUrl = Options.text("webhook-url").pipe(
  Options.optional,
  Options.withDescription("Legacy completion URL: one attempt and one quick retry (server only; not with --webhook)")
)
const idempotencyKey = Options.text("idempotency-key").pipe(
  Options.optional,
  Options.withDescription("Resubmitting with the same key and body within 24 hours returns the original batch")
)
const watchFlag = Options.boolean("watch").pipe(Options.withDescription("Show progress until the batch settles, then print it"))
const concurrency = Options.integer("concurrency").pipe(
  Options.withDefault(8),
  Options.withDescription("Embedded: pages read at once (default 8; at most 4 of one host)")
)

/** The submission body a command line describes. */
const bodyOf = (
  urls: ReadonlyArray<{ url: string; itemId?: string; meta?: Record<string, unknown> }>,
  options: {
    readonly format: "markdown" | "html"
    readonly mainContent: boolean
    readonly includeHtml: boolean
    readonly maxAge: Option.Option<number>
    readonly options: Option.Option<string>
    readonly tag: ReadonlyArray<string>
    readonly webhook: Option.Option<string>
    readonly webhookDelays: Option.Option<string>
    readonly webhookUrl: Option.Option<string>
  }
): Effect.Effect<BatchSpec.SubmitBody, CliFailure> =>
  Effect.gen(function*() {
    let extra: Record<string, unknown> = {}
    if (Option.isSome(options.options)) {
      try {
        extra = JSON.parse(options.options.value)
      } catch {
        return yield* invalid("--options must be a JSON object")
      }
      if (typeof extra !== "object" || extra === null || Array.isArray(extra)) return yield* invalid("--options must be a JSON object")
    }
    const pageOpts = {
      ...extra,
      ...(options.mainContent ? { useMainContentOnly: true } : {}),
      ...(options.includeHtml ? { includeHTML: true } : {}),
      ...(Option.isSome(options.maxAge) ? { maxAgeMs: options.maxAge.value } : {})
    }
    let delays: Array<number> | undefined
    if (Option.isSome(options.webhookDelays)) {
      if (Option.isNone(options.webhook)) return yield* invalid("--webhook-delays needs --webhook")
      const text = options.webhookDelays.value.trim()
      delays = text === "" ? [] : text.split(",").map((d) => Number(d.trim()))
      if (delays.some((d) => !Number.isInteger(d) || d < 0)) return yield* invalid("--webhook-delays must be whole seconds, comma-separated")
    }
    return yield* decodeBody({
      input: { mode: "scrape", data: { format: options.format, urls, ...(Object.keys(pageOpts).length === 0 ? {} : { options: pageOpts }) } },
      ...(options.tag.length === 0 ? {} : { tags: options.tag }),
      ...(Option.isSome(options.webhook) ? { webhook: { url: options.webhook.value, retry: delays === undefined ? {} : { delays_seconds: delays } } } : {}),
      ...(Option.isSome(options.webhookUrl) ? { webhookUrl: options.webhookUrl.value } : {})
    })
  })

const summaryLine = (batch: any) =>
  `${batch.id} ${batch.status}: ${batch.progress.succeeded} succeeded, ${batch.progress.failed} failed, ${batch.progress.pending} pending` +
  (batch.page_errors?.length > 0 ? ` (${batch.page_errors.map((e: { code: string; count: number }) => `${e.code} ${e.count}`).join(", ")})` : "")

/** `sift batch ...`, with the migrations of the database embedded commands open. */
export const batchCommand = (migrations: Migrations.MigrationRecords) => {
  const all = { ...migrations, batch: batchMigrations }

  const submit = Command.make(
    "submit",
    {
      file,
      format,
      mainContent,
      includeHtml,
      maxAge,
      options: pageOptions,
      tag: tags,
      webhook,
      webhookDelays,
      webhookUrl,
      idempotencyKey,
      watch: watchFlag,
      concurrency,
      ...apiOptions
    },
    (options) =>
      Effect.gen(function*() {
        const source = options.file === "-" ? "stdin" : options.file
        const urls = yield* Effect.flatMap(readSource(options.file), (text) => readUrlList(text, source))
        const body = yield* bodyOf(urls, options)
        const api = yield* apiOf(options)
        if (api === undefined && (body.webhook !== undefined || body.webhookUrl !== undefined)) {
          return yield* invalid("webhooks are delivered by a server: submit with --api URL --key KEY, or leave out --webhook")
        }
        yield* withBackend(all, options, (backend) =>
          Effect.gen(function*() {
            const made = yield* backend.submit(body, Option.getOrUndefined(options.idempotencyKey))
            const skipped = made.invalid_urls?.length > 0 ? `, ${made.input.invalid} invalid (not charged)` : ""
            yield* Console.error(
              `${made.id} ${made.status}: ${made.input.reserved} pages, ${made.input.duplicates} duplicates dropped${skipped}` +
                (api === undefined ? "" : `; ${made.credits.reserved} credits reserved`)
            )
            for (const bad of (made.invalid_urls ?? []).slice(0, 10)) yield* Console.error(`  invalid: ${bad.url} (${bad.reason})`)
            // Embedded batches always run here to completion; a server's when asked to watch.
            if (api !== undefined && !options.watch) return yield* printJson(made)
            const final = yield* watch(backend, made.id)
            yield* Console.error(summaryLine(final))
            yield* printJson(final)
          }), { create: true, concurrency: options.concurrency })
      })
  ).pipe(Command.withDescription(
    "Submit a batch of up to 25,000 URLs from FILE (or - for stdin): one URL a line, or JSON lines with url, itemId " +
      "and meta. With --api, the server runs it (credits reserved per page, refunded for pages that fail); prints the " +
      "submission as JSON (with --watch, waits and prints the settled batch). Embedded, it runs here to completion " +
      "with progress on stderr, then prints the settled batch; read its records with sift batch results ID."
  ))

  const list = Command.make(
    "list",
    {
      status: Options.choice("status", ["queued", "running", "cancelling", "completed", "cancelled", "failed"]).pipe(
        Options.optional,
        Options.withDescription("Only batches in this state")
      ),
      limit: Options.integer("limit").pipe(Options.withDefault(25), Options.withDescription("Batches at most, 1 to 100 (default 25)")),
      cursor: Options.text("cursor").pipe(Options.optional, Options.withDescription("next_cursor of the previous page")),
      q: Options.text("search").pipe(Options.optional, Options.withDescription("Match the batch id, crawl source or tags (prefix)")),
      tag: Options.text("tag").pipe(Options.repeated, Options.withDescription("Only batches with this tag (repeat: any of them)")),
      json: Options.boolean("json").pipe(Options.withDescription("Print the API's list page as JSON")),
      ...apiOptions
    },
    (options) =>
      withBackend(all, options, (backend) =>
        Effect.gen(function*() {
          if (options.limit < 1 || options.limit > 100) return yield* invalid("--limit must be 1 to 100")
          const page = yield* backend.list({
            limit: options.limit,
            cursor: Option.getOrUndefined(options.cursor),
            status: Option.getOrUndefined(options.status),
            q: Option.getOrUndefined(options.q),
            tags: options.tag
          })
          if (options.json) return yield* printJson(page)
          for (const batch of page.data ?? []) {
            yield* Console.log(
              [batch.id, batch.status, batch.mode, batch.format, `${batch.progress.succeeded} ok`, `${batch.progress.failed} failed`,
                `${batch.progress.pending} pending`, batch.timing.created_at].join("\t")
            )
          }
          if (page.has_more) yield* Console.error(`more: sift batch list --cursor ${page.next_cursor}`)
        }))
  ).pipe(Command.withDescription(
    "List batches, newest first: one tab-separated line each (id, status, mode, format, counts, created), or --json."
  ))

  const status = Command.make(
    "status",
    { id: batchId, watch: watchFlag, concurrency, ...apiOptions },
    (options) =>
      withBackend(all, options, (backend) =>
        Effect.gen(function*() {
          const batch = options.watch ? yield* watch(backend, options.id) : yield* backend.get(options.id)
          if (options.watch) yield* Console.error(summaryLine(batch))
          yield* printJson(batch)
        }), { concurrency: options.concurrency })
  ).pipe(Command.withDescription(
    "Print a batch as JSON (status, progress, credits, page errors, result files). --watch shows a progress bar on a " +
      "terminal (plain lines otherwise) until it settles; embedded, it also resumes a batch an earlier run left unfinished."
  ))

  const results = Command.make(
    "results",
    { id: batchId, ...apiOptions },
    (options) =>
      withBackend(all, options, (backend) =>
        Effect.gen(function*() {
          let cursor: string | undefined
          let count = 0
          do {
            const page = yield* backend.results(options.id, cursor)
            const lines = (page.data ?? []).map((record: unknown) => JSON.stringify(record) + "\n").join("")
            if (lines !== "") yield* Effect.promise(() => new Promise<void>((resolve) => process.stdout.write(lines, () => resolve())))
            count += page.data?.length ?? 0
            cursor = page.has_more ? page.next_cursor ?? undefined : undefined
          } while (cursor !== undefined)
          yield* Console.error(`${count} records`)
        }))
  ).pipe(Command.withDescription(
    "Print every record of a settled batch as NDJSON on stdout (the API's results, all pages): " +
      "{ status: ok, url, final_url, markdown|html, metadata, ... } or { status: error, url, error_code, message }."
  ))

  const cancel = Command.make(
    "cancel",
    { id: batchId, ...apiOptions },
    (options) =>
      withBackend(all, options, (backend) =>
        Effect.gen(function*() {
          const cancelling = yield* backend.cancel(options.id)
          if (backend.drive === undefined) return yield* printJson(cancelling)
          // Embedded: nothing else works the batch, so settle it here (pages in flight elsewhere finish first).
          const final = yield* watch(backend, options.id)
          yield* Console.error(summaryLine(final))
          yield* printJson(final)
        }))
  ).pipe(Command.withDescription(
    "Cancel a batch: pages not started are skipped and refunded, pages in flight finish. Prints the answer (status " +
      "cancelling); embedded, settles it and prints the cancelled batch."
  ))

  return Command.make("batch").pipe(
    Command.withDescription(
      "Batches of up to 25,000 URLs as durable jobs: against a server with --api URL --key KEY (or SIFT_API_URL and " +
        "SIFT_API_KEY), or embedded on the data directory's database (SIFT_DATA_DIR, default ./.sift) without credits."
    ),
    Command.withSubcommands([submit, list, status, results, cancel])
  )
}
