/**
 * An `HttpServerRequest` over a Node `IncomingMessage`, for the API front (`apiFront.ts`): the same members and the same
 * behaviour as `@effect/platform-node`'s own request (which is not exported), built without its per-request cost.
 * Body readers honour `HttpIncomingMessage.MaxBodySize` and fail with a `RequestError` ("Decode") as the platform's do.
 */
import type * as Headers from "@effect/platform/Headers"
import * as IncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Cookies from "@effect/platform/Cookies"
import * as NodeMultipart from "@effect/platform-node/NodeMultipart"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Inspectable, Option, type Stream } from "effect"
import type * as http from "node:http"

/** The platform's request interface over a Node request (no upgrade: the API front never serves WebSockets). */
export class NodeServerRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [IncomingMessage.TypeId]: IncomingMessage.TypeId = IncomingMessage.TypeId
  private textEffect: Effect.Effect<string, HttpServerError.RequestError> | undefined
  private cachedCookies: Record<string, string> | undefined

  constructor(
    readonly source: http.IncomingMessage,
    readonly url: string = source.url ?? "/",
    private readonly headersOverride?: Headers.Headers,
    private readonly remoteAddressOverride?: string
  ) {
    super()
  }

  // Made when a body is read, not per request (most API requests are GETs).
  private get onError(): (cause: unknown) => HttpServerError.RequestError {
    return (cause) => new HttpServerError.RequestError({ request: this, reason: "Decode", cause })
  }

  get originalUrl(): string {
    return this.source.url ?? "/"
  }
  get method(): HttpServerRequest.HttpServerRequest["method"] {
    return this.source.method!.toUpperCase() as HttpServerRequest.HttpServerRequest["method"]
  }
  get headers(): Headers.Headers {
    return this.headersOverride ?? (this.source.headers as unknown as Headers.Headers)
  }
  get remoteAddress(): Option.Option<string> {
    return Option.fromNullable(this.remoteAddressOverride ?? this.source.socket.remoteAddress)
  }
  get cookies(): Record<string, string> {
    return this.cachedCookies ??= Cookies.parseHeader(this.headers.cookie ?? "")
  }
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    // Read once: every later use sees the same text (the stream can only be consumed once).
    return this.textEffect ??= Effect.runSync(Effect.cached(Effect.flatMap(IncomingMessage.MaxBodySize, (maxBodySize) =>
      NodeStream.toString(() => this.source, { onFailure: this.onError, maxBytes: Option.getOrUndefined(maxBodySize) }))))
  }
  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    return Effect.tryMap(this.text, { try: (text) => text === "" ? null : JSON.parse(text) as unknown, catch: this.onError })
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: this.onError }))
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.RequestError> {
    // As the platform's: the bytes come as a Uint8Array (which the type does not say).
    return Effect.flatMap(IncomingMessage.MaxBodySize, (maxBodySize) =>
      NodeStream.toUint8Array(() => this.source, { onFailure: this.onError, maxBytes: Option.getOrUndefined(maxBodySize) })) as unknown as Effect.Effect<
        ArrayBuffer,
        HttpServerError.RequestError
      >
  }
  get stream(): Stream.Stream<Uint8Array, HttpServerError.RequestError> {
    return NodeStream.fromReadable<HttpServerError.RequestError, Uint8Array>(() => this.source, this.onError)
  }
  get multipart() {
    return NodeMultipart.persisted(this.source, this.source.headers)
  }
  get multipartStream() {
    return NodeMultipart.stream(this.source, this.source.headers)
  }
  get upgrade(): Effect.Effect<never, HttpServerError.RequestError> {
    return Effect.fail(new HttpServerError.RequestError({ request: this, reason: "Decode", description: "not an upgradeable ServerRequest" }))
  }
  modify(options: { readonly url?: string; readonly headers?: Headers.Headers; readonly remoteAddress?: string }): HttpServerRequest.HttpServerRequest {
    return new NodeServerRequest(
      this.source,
      options.url ?? this.url,
      options.headers ?? this.headersOverride,
      options.remoteAddress ?? this.remoteAddressOverride
    )
  }
  override toString(): string {
    return `ServerRequest(${this.method} ${this.url})`
  }
  toJSON(): unknown {
    return IncomingMessage.inspect(this, { _id: "@effect/platform/HttpServerRequest", method: this.method, url: this.originalUrl })
  }
}
