import { Command, Options } from "@effect/cli"
import { ConfigError, Effect, Option } from "effect"
import * as Server from "../../Server.js"
import * as ServiceConfig from "../../ServiceConfig.js"
import { CliFailure, ExitCode } from "./failure.js"

const host = Options.text("host").pipe(
  Options.optional,
  Options.withDescription("Address to bind (env SIFT_HOST, default 127.0.0.1). Off loopback, plain HTTP is refused " +
    "unless TLS is configured or the request comes through a trusted proxy with X-Forwarded-Proto: https")
)
const port = Options.integer("port").pipe(
  Options.optional,
  Options.withDescription("Port to listen on (env SIFT_PORT, default 3002; 0 picks a free one)")
)
const dataDir = Options.text("data-dir").pipe(
  Options.optional,
  Options.withDescription("Data directory of the embedded database (env SIFT_DATA_DIR, default ./.sift); " +
    "unused when DATABASE_URL is set")
)
const logLevel = Options.choice("log-level", ["trace", "debug", "info", "warn", "error", "none"]).pipe(
  Options.optional,
  Options.withDescription("Lowest level of the JSON log lines written to stderr (env SIFT_LOG_LEVEL, default info)")
)

const role = Options.choice("role", ["all", "api", "worker"]).pipe(
  Options.optional,
  Options.withDescription("What this process does (env SIFT_ROLE, default all): all = HTTP and jobs; api = HTTP only, " +
    "jobs are queued for workers; worker = jobs only (answers /health, /ready, /metrics). api and worker need DATABASE_URL")
)

/** How long a stopped server's process may take to exit on its own before it is ended. */
const EXIT_GRACE_MS = 1_000

/** The description `sift serve --help` prints: what it does and the environment it reads. */
export const description = [
  "Run the Sift API server: the API under /v1, auth-host routes at the root, structured JSON logs on stderr.",
  "Storage is embedded PGlite in the data directory unless DATABASE_URL names a PostgreSQL database; migrations run",
  "at start-up. GET /health and GET /ready (no key) answer from the moment the port opens; other requests get 503",
  "with Retry-After until it is ready. SIGINT/SIGTERM stop it gracefully (in-flight requests finish, logs flush, the",
  "database closes).",
  "Environment: SIFT_HOST, SIFT_PORT, SIFT_DATA_DIR, DATABASE_URL, SIFT_TLS_CERT + SIFT_TLS_KEY (PEM files: serve",
  "HTTPS), SIFT_TRUSTED_PROXIES (comma-separated IPs/CIDRs), SIFT_BOOTSTRAP_KEY + SIFT_BOOTSTRAP_PLAN (ensure that",
  "API key exists; plan default scale), SIFT_LOG_LEVEL, SIFT_SHUTDOWN_TIMEOUT_MS (default 30000), SIFT_SHUTDOWN_DELAY_MS (default 0),",
  "SIFT_ALLOW_PRIVATE_TARGETS, SIFT_PROXY_URL, SIFT_COUNTRY_PROXIES, SIFT_HOST_RESOLVER_RULES, SIFT_USER_AGENT,",
  "SIFT_CHROMIUM_PATH, SIFT_BROWSER_WS_ENDPOINT, SIFT_ROLE, SIFT_QUEUE_CONCURRENCY, SIFT_METRICS, SIFT_METRICS_TOKEN,",
  "OTEL_EXPORTER_OTLP_ENDPOINT (traces over OTLP/HTTP). Flags win over their variables. See docs/configuration.md."
].join(" ")

/** The flag that overrides each variable `sift serve` has a flag for. */
const flagOf: Readonly<Record<string, string>> = {
  SIFT_HOST: "--host",
  SIFT_PORT: "--port",
  SIFT_DATA_DIR: "--data-dir",
  SIFT_LOG_LEVEL: "--log-level",
  SIFT_ROLE: "--role"
}

const leaves = (error: ConfigError.ConfigError): Array<ConfigError.ConfigError> =>
  error._op === "And" || error._op === "Or" ? [...leaves(error.left), ...leaves(error.right)] : [error]

/**
 * A configuration error as one line naming each bad setting (and its flag). Flags are layered over the environment,
 * so a bad value shows up as "missing from the flags, or invalid in the environment": the invalid part is the news.
 */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const all = leaves(error)
  const invalid = all.filter((leaf) => leaf._op !== "MissingData")
  const byName = new Map<string, string>()
  for (const leaf of invalid.length > 0 ? invalid : all) {
    if (!("path" in leaf)) continue
    const name = leaf.path.join(".")
    if (byName.has(name)) continue
    const flag = flagOf[name] === undefined ? "" : ` (or ${flagOf[name]})`
    byName.set(name, `invalid setting ${name === "" ? "(unnamed)" : name}${flag}: ${leaf.message}`)
  }
  return [...byName.values()].join("; ")
}

/** Why start-up failed, as the one line after `error: STARTUP_FAILED: `. */
export const describeStartupFailure = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return describeConfigError(error)
  const message = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  if (message !== "") return message
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  return cause === undefined ? String((error as { _tag?: unknown })?._tag ?? "start-up failed") : describeStartupFailure(cause)
}

/** `sift serve`: runs `application` with flags layered over the environment. */
export const serveCommand = <E>(application: Server.Application<E>) =>
  Command.make("serve", { host, port, dataDir, logLevel, role }, (flags) =>
    Server.run(application).pipe(
      Effect.withConfigProvider(ServiceConfig.providerWithFlags({
        host: Option.getOrUndefined(flags.host),
        port: Option.getOrUndefined(flags.port),
        dataDir: Option.getOrUndefined(flags.dataDir),
        logLevel: Option.getOrUndefined(flags.logLevel),
        role: Option.getOrUndefined(flags.role)
      })),
      Effect.mapError((error) =>
        new CliFailure({ errorCode: "STARTUP_FAILED", message: describeStartupFailure(error), exitCode: ExitCode.internal })
      ),
      // Stopped: a job abandoned past the shutdown time (handed back to the queue) may still hold a socket or a timer;
      // it must not keep the process from exiting. A second later the process exits with its code, whatever remains.
      Effect.tap(() => Effect.sync(() => setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_GRACE_MS).unref()))
    )).pipe(Command.withDescription(description))
