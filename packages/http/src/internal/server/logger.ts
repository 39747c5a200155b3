/**
 * Structured logs on stderr: one JSON object per line (`time`, `level`, `msg`, then the log annotations, such as
 * `request_id`, `method`, `path`, `status`, `latency_ms`), through Effect's `Logger` so every `Effect.log*` of every
 * package lands here, filtered by `SIFT_LOG_LEVEL`.
 */
import { Cause, HashMap, Inspectable, Layer, List, Logger, type LogLevel } from "effect"

const levelName = (level: LogLevel.LogLevel): string =>
  level._tag === "Warning" ? "warn" : level._tag.toLowerCase()

const messageText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((part) => typeof part === "string" ? part : Inspectable.toStringUnknown(part, 0)).join(" ")
}

/** The JSON-lines logger, writing to `write` (stderr by default). */
export const jsonLogger = (write: (line: string) => void = (line) => process.stderr.write(line)) =>
  Logger.make<unknown, void>(({ annotations, cause, date, logLevel, message, spans }) => {
    const record: Record<string, unknown> = {
      time: date.toISOString(),
      level: levelName(logLevel),
      msg: messageText(message)
    }
    for (const [key, value] of HashMap.toEntries(annotations)) record[key] = value
    if (!Cause.isEmpty(cause)) record.error = Cause.pretty(cause, { renderErrorCause: true })
    for (const span of List.toArray(spans)) record[`${span.label}_ms`] = date.getTime() - span.startTime
    let line: string
    try {
      line = JSON.stringify(record)
    } catch {
      line = JSON.stringify({ time: record.time, level: record.level, msg: record.msg })
    }
    write(line + "\n")
  })

/** Replaces the default logger with the JSON-lines one at `level` and above. */
export const layer = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(Logger.replace(Logger.defaultLogger, jsonLogger()), Logger.minimumLogLevel(level))
