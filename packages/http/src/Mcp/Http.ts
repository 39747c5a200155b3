/**
 * The hosted tool server at `/mcp` (Streamable HTTP, stateless: one MCP server per POST, JSON responses) and its OAuth
 * protected-resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource/mcp`. A tool call is dispatched as an
 * internal request into the API application itself, with the caller's bearer token, so it is authenticated, rate
 * limited, charged and logged exactly like the same call over HTTP. The OAuth endpoints for remote clients (`OAuth`) are
 * mounted here too.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ApiKeys } from "@sift/auth"
import { Effect, Option, Runtime } from "effect"
import { publicOrigin } from "../Images/HostedFiles.js"
import * as Body from "../internal/body.js"
import { limitRegistrations } from "../Agents/Limits.js"
import * as OAuth from "./OAuth.js"
import * as Tools from "./Tools.js"

/** Where the tool server is mounted. */
export const PATH = "/mcp"
/** Its protected-resource metadata (RFC 9728: the well-known prefix before the resource's path). */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"
/** The scopes the tool server understands. */
export const SCOPES: ReadonlyArray<Tools.Scope> = ["api.read", "api.write"]

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** The protected-resource metadata document of the tool server. */
export const resourceMetadata = (origin: string) => ({
  resource: `${origin}${PATH}`,
  authorization_servers: [origin],
  scopes_supported: SCOPES,
  bearer_methods_supported: ["header"],
  resource_name: "Sift MCP server"
})

const unauthorized = (origin: string, error: string | undefined, description: string) =>
  HttpServerResponse.unsafeJson(
    { error: error ?? "unauthorized", error_description: description },
    {
      status: 401,
      headers: {
        "www-authenticate": `Bearer resource_metadata="${origin}${RESOURCE_METADATA_PATH}"` +
          (error === undefined ? "" : `, error="${error}", error_description="${description}"`) +
          `, scope="${SCOPES.join(" ")}"`
      }
    }
  )

/** The scopes a bearer token (an API key, or an OAuth access token, which is one) carries, by its permissions. */
const scopesOf = (secret: string) =>
  Effect.flatMap(ApiKeys.ApiKeys, (keys) => keys.authenticate(secret)).pipe(
    Effect.map((auth) => OAuth.scopesOf(auth.permissions)),
    Effect.option
  )

/** Runs `app` on an internal request and reads its JSON answer. */
const dispatcher = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  runtime: Runtime.Runtime<R>,
  origin: string,
  headers: Record<string, string>
): Tools.Dispatch =>
async (internal) => {
  const query = internal.query === undefined ? "" : Tools.encodeQuery(internal.query).toString()
  const request = new Request(`${origin}${internal.path}${query === "" ? "" : `?${query}`}`, {
    method: internal.method,
    headers: { ...headers, ...internal.headers, ...(internal.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(internal.body === undefined ? {} : { body: JSON.stringify(internal.body) })
  })
  const response = await Runtime.runPromise(runtime)(
    app.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(request)),
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logError("MCP tool call failed", cause), HttpServerResponse.unsafeJson({ error_code: "INTERNAL_ERROR", message: "Internal error" }, { status: 500 })))
    )
  )
  const text = await HttpServerResponse.toWeb(response).text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // Not JSON: handed to the client as text.
  }
  return { status: response.status, body }
}

const unreadable = HttpServerResponse.unsafeJson(
  { jsonrpc: "2.0", error: { code: -32700, message: "The request body could not be read" }, id: null },
  { status: 400 }
)

/** Answers one request to `/mcp`. */
const serveMcp = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const origin = yield* publicOrigin
    if (request.method !== "POST") {
      // Stateless server: no standalone event stream and no sessions to delete.
      return HttpServerResponse.unsafeJson(
        { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: send JSON-RPC messages with POST" }, id: null },
        { status: 405, headers: { allow: "POST" } }
      )
    }
    const secret = BEARER.exec(request.headers.authorization ?? "")?.[1]
    if (secret === undefined) return unauthorized(origin, undefined, "Send Authorization: Bearer <access token or API key>")
    const scopes = yield* scopesOf(secret)
    if (scopes._tag === "None") return unauthorized(origin, "invalid_token", "The access token or API key is invalid, expired or revoked")

    const runtime = yield* Effect.runtime<R>()
    const forwarded: Record<string, string> = { authorization: `Bearer ${secret}` }
    const agent = request.headers["user-agent"]
    if (agent !== undefined) forwarded["user-agent"] = agent
    // The JSON-RPC message is read with the API's cap on JSON bodies (it is the same request a tool call becomes).
    const read = yield* Effect.either(Body.read(request, Body.MAX_JSON_BODY_BYTES))
    if (read._tag === "Left") {
      return read.left === "TooLarge"
        ? HttpServerResponse.unsafeJson(
          { jsonrpc: "2.0", error: { code: -32600, message: `The request body exceeds ${Body.MAX_JSON_BODY_BYTES} bytes (2 MiB)` }, id: null },
          { status: 413 }
        )
        : unreadable
    }
    const { "content-length": _length, "transfer-encoding": _encoding, ...headers } = request.headers
    const webRequest = new Request(Option.getOrElse(HttpServerRequest.toURL(request), () => new URL(`${origin}${PATH}`)), {
      method: "POST",
      headers,
      body: read.right
    })
    const answer = yield* Effect.promise(async () => {
      // The MCP SDK (and the zod it brings, ~12 MB of a process's memory) is loaded by the first MCP request, not at start.
      const [ToolServer, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
        import("./ToolServer.js"),
        import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js")
      ])
      const server = ToolServer.make(dispatcher(app, runtime, origin, forwarded), scopes.value)
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await server.connect(transport)
      try {
        const response = await transport.handleRequest(webRequest)
        return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() }
      } finally {
        await server.close()
      }
    })
    return HttpServerResponse.text(answer.text, { status: answer.status, headers: answer.headers })
  })

/**
 * One authorization server metadata document: the application's (the agent registration grants) when it serves one,
 * with this module's endpoints, grants and scopes merged in; else this module's alone.
 */
const authorizationServerMetadata = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>, origin: string) =>
  Effect.gen(function*() {
    const ours = OAuth.metadata(origin)
    const answer = yield* Effect.either(app)
    const theirs = answer._tag === "Right" && answer.right.status === 200
      ? yield* Effect.promise(() => HttpServerResponse.toWeb(answer.right).json().catch(() => undefined) as Promise<Record<string, unknown> | undefined>)
      : undefined
    const union = (key: "grant_types_supported" | "scopes_supported" | "response_types_supported" | "token_endpoint_auth_methods_supported") =>
      [...new Set([...(Array.isArray(theirs?.[key]) ? theirs[key] as Array<string> : []), ...ours[key]])]
    const document = theirs === undefined ? ours : {
      ...theirs,
      ...ours,
      grant_types_supported: union("grant_types_supported"),
      scopes_supported: union("scopes_supported"),
      response_types_supported: union("response_types_supported"),
      token_endpoint_auth_methods_supported: union("token_endpoint_auth_methods_supported")
    }
    return HttpServerResponse.unsafeJson(document, { headers: { "cache-control": "max-age=3600" } })
  })

// Storage or other unexpected failures of the OAuth endpoints: the OAuth error shape, never a crash.
const oauthFailures = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  effect.pipe(Effect.catchAllCause((cause) =>
    Effect.as(
      Effect.logError("OAuth endpoint failed", cause),
      HttpServerResponse.unsafeJson({ error: "server_error", error_description: "Internal error" }, { status: 500, headers: { "cache-control": "no-store" } })
    )))

/** `app` with the tool server mounted beside it: `/mcp` and its metadata are answered here, the rest by `app`. */
export const mount = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, "http://sift.local").pathname
    if (path === PATH) return yield* serveMcp(app)
    const route = `${request.method} ${path}`
    switch (route) {
      case `GET ${RESOURCE_METADATA_PATH}`:
        return HttpServerResponse.unsafeJson(resourceMetadata(yield* publicOrigin), { headers: { "cache-control": "max-age=3600" } })
      case "GET /.well-known/oauth-authorization-server":
        return yield* authorizationServerMetadata(app, yield* publicOrigin)
      case "POST /oauth2/register":
        return yield* limitRegistrations(oauthFailures(OAuth.register))
      case "GET /oauth2/authorize":
        return yield* oauthFailures(OAuth.authorizePage)
      case "POST /oauth2/authorize":
        return yield* oauthFailures(OAuth.authorizeDecision)
      case "POST /oauth2/token": {
        // One token endpoint: the grants of this module here, the others (claim, jwt-bearer) to the application.
        const form = Object.fromEntries(yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as Array<[string, string]>))
        if ((OAuth.GRANTS as ReadonlyArray<string>).includes(form.grant_type ?? "")) return yield* oauthFailures(OAuth.tokenGrant(form))
        const answer = yield* app
        return answer.status === 404
          ? HttpServerResponse.unsafeJson(
            { error: "unsupported_grant_type", error_description: `grant_type must be one of ${OAuth.GRANTS.join(", ")}` },
            { status: 400, headers: { "cache-control": "no-store" } }
          )
          : answer
      }
    }
    return yield* app
  })
