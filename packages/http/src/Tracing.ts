/**
 * OpenTelemetry traces of `sift serve` through `@effect/opentelemetry`, on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (the OTLP/HTTP exporter reads it and the other `OTEL_EXPORTER_OTLP_*` variables; `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` name the service, default `sift`). One span per API request with the request pipeline's
 * stages as its children; a job's span is linked to the request that queued it (its trace context travels in the
 * job's data). Off, nothing here runs per request: the pipeline checks one flag.
 *
 * @since 0.1.0
 */
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option, Tracer } from "effect"

let on = false

/** Whether spans are being recorded in this process (set once the tracing layer is built). */
export const enabled = (): boolean => on

/**
 * The tracer over `processor` (a test's in-memory exporter, or the OTLP batch processor), for everything built under it.
 *
 * @category layers
 */
export const layer = (processor: SpanProcessor): Layer.Layer<never> =>
  // The OpenTelemetry SDK is loaded only when tracing is on (it is several MB of a process's memory otherwise unused).
  Layer.unwrapEffect(Effect.map(Effect.promise(() => import("@effect/opentelemetry/NodeSdk")), (NodeSdk) =>
    Layer.merge(
      NodeSdk.layer(() => ({ resource: { serviceName: process.env.OTEL_SERVICE_NAME ?? "sift" }, spanProcessor: processor })),
      Layer.scopedDiscard(Effect.acquireRelease(Effect.sync(() => void (on = true)), () => Effect.sync(() => void (on = false))))
    )))

/**
 * Traces to `OTEL_EXPORTER_OTLP_ENDPOINT` over OTLP/HTTP when it is set; nothing otherwise.
 *
 * @category layers
 */
export const layerConfig: Layer.Layer<never, never> = Layer.unwrapEffect(
  Effect.map(
    Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Effect.orElseSucceed(() => Option.none<string>())),
    (endpoint) => Option.isNone(endpoint) ? Layer.empty : Layer.unwrapEffect(Effect.map(
      Effect.promise(() => Promise.all([import("@opentelemetry/sdk-trace-base"), import("@opentelemetry/exporter-trace-otlp-http")])),
      ([{ BatchSpanProcessor }, { OTLPTraceExporter }]) => layer(new BatchSpanProcessor(new OTLPTraceExporter()))
    ))
  )
)

/** `effect` as a child span named `name` while tracing is on; `effect` itself (no step added) otherwise. */
export const stage = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  on ? Effect.withSpan(effect, name) : effect

/** The member of a job's data that carries the trace context of the span that queued it. */
export const JOB_TRACE = "_trace"

/** `data` with the current span's trace context added (when tracing is on and a span is current). */
export const withTraceContext = (data: object): Effect.Effect<object> =>
  on
    ? Effect.map(Effect.option(Effect.currentSpan), (span) =>
      Option.isNone(span) ? data : { ...data, [JOB_TRACE]: { traceId: span.value.traceId, spanId: span.value.spanId } })
    : Effect.succeed(data)

/** Runs a job's handler in a span of its own, linked to the span that queued it (if its data says which). */
export const jobSpan = <A, E, R>(queue: string, data: unknown, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  if (!on) return effect
  const context = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[JOB_TRACE] : undefined
  const links = typeof context === "object" && context !== null &&
      typeof (context as { traceId?: unknown }).traceId === "string" && typeof (context as { spanId?: unknown }).spanId === "string"
    ? [{ _tag: "SpanLink" as const, span: Tracer.externalSpan(context as { traceId: string; spanId: string }), attributes: { "sift.link": "queued by" } }]
    : []
  // A root span: the job is its own trace, linked to the request's (it may run long after the request ended).
  return Effect.withSpan(effect, `job ${queue}`, { kind: "consumer", links, root: true, attributes: { "sift.queue": queue } })
}
