/**
 * The configuration of `sift serve`, read once through effect `Config` from environment variables; command-line flags
 * are layered on top as a `ConfigProvider`, so a flag wins over its variable and every layer (storage, Fetcher) reads
 * the same values. Every setting is listed with its default in `docs/configuration.md`.
 *
 * @since 0.1.0
 */
import { Plans } from "@sift/auth"
import { Config, ConfigError, ConfigProvider, Context, Either, Layer, LogLevel, Option, Redacted } from "effect"
import { parseTrustedProxies, type TrustedProxies } from "./internal/server/httpsRule.js"

/** The plans an organization can be on (decisions §1): auth's list, declared there once. */
export const plans = Plans.names

/** A plan name. */
export type PlanName = Plans.PlanName

/** Certificate and key files for TLS. */
export interface TlsFiles {
  readonly certFile: string
  readonly keyFile: string
}

/**
 * Everything the server reads at start-up.
 *
 * @category models
 */
export interface ServiceConfig {
  readonly host: string
  readonly port: number
  /** The data directory (PGlite files, lock); unused for the database when `databaseUrl` is set. */
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly tls: Option.Option<TlsFiles>
  readonly trustedProxies: TrustedProxies
  readonly bootstrapKey: Option.Option<Redacted.Redacted>
  readonly bootstrapPlan: PlanName
  readonly logLevel: LogLevel.LogLevel
  /** How long shutdown waits for in-flight requests before closing their connections. */
  readonly shutdownTimeoutMs: number
  /** How long, after SIGTERM and before it stops accepting, the process keeps serving with `/ready` at 503 (draining). */
  readonly shutdownDelayMs: number
  /** `SIFT_ROLE`: `all` (HTTP and jobs, one process), `api` (HTTP, enqueues only) or `worker` (jobs only). */
  readonly role: Role
  /** `SIFT_QUEUE_CONCURRENCY`: jobs run at once per queue in this process, over each worker's own default. */
  readonly queueConcurrency: Readonly<Record<string, number>>
  /** `SIFT_METRICS`: whether `/metrics` answers; `SIFT_METRICS_TOKEN` the bearer it then requires (none: open). */
  readonly metrics: boolean
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** `SIFT_JOBS_SCHEMA`: pg-boss's schema on PostgreSQL. */
  readonly jobsSchema: string
}

/** What a process does: `all` of it, only the HTTP `api` (enqueuing jobs), or only the `worker` (running them). */
export const roles = ["all", "api", "worker"] as const

/** A process role. */
export type Role = typeof roles[number]

/** `queue=n,queue=n` (whitespace allowed): jobs at once per queue, 1 to 1000 each; a message when it is not that. */
export const parseQueueConcurrency = (text: string): Record<string, number> | string => {
  const result: Record<string, number> = {}
  for (const part of text.split(",")) {
    if (part.trim() === "") continue
    const match = /^\s*([A-Za-z0-9_.\-/]+)\s*=\s*(\d+)\s*$/.exec(part)
    if (match === null) return `expected queue=count pairs separated by commas, got "${part.trim()}"`
    const count = Number(match[2])
    if (count < 1 || count > 1000) return `the concurrency of ${match[1]} must be 1 to 1000, got ${count}`
    result[match[1]!] = count
  }
  return result
}

const queueConcurrency = Config.string("SIFT_QUEUE_CONCURRENCY").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const parsed = parseQueueConcurrency(text)
    return typeof parsed === "string" ? Either.left(ConfigError.InvalidData([], parsed)) : Either.right(parsed)
  })
)

const logLevels: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

const logLevel = Config.string("SIFT_LOG_LEVEL").pipe(
  Config.withDefault("info"),
  Config.mapOrFail((text) => {
    const level = logLevels[text.trim().toLowerCase()]
    return level === undefined
      ? Either.left(ConfigError.InvalidData([], `expected one of ${Object.keys(logLevels).join(", ")}, got "${text}"`))
      : Either.right(level)
  })
)

const trustedProxies = Config.string("SIFT_TRUSTED_PROXIES").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const parsed = parseTrustedProxies(text)
    return typeof parsed === "string" ? Either.left(ConfigError.InvalidData([], parsed)) : Either.right(parsed)
  })
)

const tls = Config.all({
  cert: Config.option(Config.nonEmptyString("SIFT_TLS_CERT")),
  key: Config.option(Config.nonEmptyString("SIFT_TLS_KEY"))
}).pipe(
  Config.mapOrFail(({ cert, key }) => {
    if (Option.isSome(cert) && Option.isSome(key)) {
      return Either.right(Option.some<TlsFiles>({ certFile: cert.value, keyFile: key.value }))
    }
    if (Option.isNone(cert) && Option.isNone(key)) return Either.right(Option.none<TlsFiles>())
    return Either.left(ConfigError.InvalidData([], "SIFT_TLS_CERT and SIFT_TLS_KEY must be set together"))
  })
)

const nonEmptyRedacted = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value) !== ""))
  )

/** `SIFT_JOBS_SCHEMA`: pg-boss's schema on PostgreSQL (default `pgboss`). */
export const jobsSchemaConfig = Config.string("SIFT_JOBS_SCHEMA").pipe(
  Config.validate({ message: "expected a schema name: a letter or _, then letters, digits or _ (at most 50)", validation: (name) => /^[A-Za-z_][A-Za-z0-9_]{0,49}$/.test(name) }),
  Config.withDefault("pgboss")
)

/**
 * The server configuration from `SIFT_*` variables and `DATABASE_URL`.
 *
 * @category config
 */
export const config: Config.Config<ServiceConfig> = Config.all({
  host: Config.string("SIFT_HOST").pipe(Config.withDefault("127.0.0.1")),
  // 0 asks the system for a free port (tests, several servers on one machine).
  port: Config.integer("SIFT_PORT").pipe(
    Config.validate({ message: "expected a port number, 0 to 65535", validation: (n) => n >= 0 && n <= 65_535 }),
    Config.withDefault(3002)
  ),
  dataDir: Config.string("SIFT_DATA_DIR").pipe(Config.withDefault("./.sift")),
  databaseUrl: nonEmptyRedacted("DATABASE_URL"),
  tls,
  trustedProxies,
  bootstrapKey: nonEmptyRedacted("SIFT_BOOTSTRAP_KEY"),
  bootstrapPlan: Config.literal(...plans)("SIFT_BOOTSTRAP_PLAN").pipe(Config.withDefault("scale" as const)),
  logLevel,
  shutdownTimeoutMs: Config.integer("SIFT_SHUTDOWN_TIMEOUT_MS").pipe(
    Config.validate({ message: "expected a positive number of milliseconds", validation: (n) => n > 0 }),
    Config.withDefault(30_000)
  ),
  shutdownDelayMs: Config.integer("SIFT_SHUTDOWN_DELAY_MS").pipe(
    Config.validate({ message: "expected 0 to 600000 milliseconds", validation: (n) => n >= 0 && n <= 600_000 }),
    Config.withDefault(0)
  ),
  role: Config.literal(...roles)("SIFT_ROLE").pipe(Config.withDefault("all" as const)),
  queueConcurrency,
  metrics: Config.boolean("SIFT_METRICS").pipe(Config.withDefault(false)),
  metricsToken: nonEmptyRedacted("SIFT_METRICS_TOKEN"),
  jobsSchema: jobsSchemaConfig
})

/**
 * The configuration the server started with, for the layers that run inside it.
 *
 * @category tags
 */
export class CurrentConfig extends Context.Tag("@sift/http/ServiceConfig/CurrentConfig")<CurrentConfig, ServiceConfig>() {}

/**
 * Command-line flags that override their variables (`--port` over `SIFT_PORT`, ...).
 *
 * @category models
 */
export interface Flags {
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly dataDir?: string | undefined
  readonly logLevel?: string | undefined
  readonly role?: string | undefined
}

/**
 * A `ConfigProvider` that answers flags first, then the environment.
 *
 * @category config
 */
export const providerWithFlags = (flags: Flags, fallback: ConfigProvider.ConfigProvider = ConfigProvider.fromEnv()) => {
  const entries: Array<[string, string]> = []
  if (flags.host !== undefined) entries.push(["SIFT_HOST", flags.host])
  if (flags.port !== undefined) entries.push(["SIFT_PORT", String(flags.port)])
  if (flags.dataDir !== undefined) entries.push(["SIFT_DATA_DIR", flags.dataDir])
  if (flags.logLevel !== undefined) entries.push(["SIFT_LOG_LEVEL", flags.logLevel])
  if (flags.role !== undefined) entries.push(["SIFT_ROLE", flags.role])
  return ConfigProvider.fromMap(new Map(entries)).pipe(ConfigProvider.orElse(() => fallback))
}

/**
 * Installs `providerWithFlags` for everything built under it.
 *
 * @category layers
 */
export const layerFlags = (flags: Flags): Layer.Layer<never> => Layer.setConfigProvider(providerWithFlags(flags))
