import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as Tools from "../../Mcp/Tools.js"
import { CliFailure, ExitCode } from "./failure.js"

const url = Options.text("url").pipe(
  Options.withDefault(process.env.SIFT_API_URL ?? "http://127.0.0.1:3002"),
  Options.withDescription("The Sift service to call (its root, without /v1); default SIFT_API_URL or http://127.0.0.1:3002")
)

/** Dispatches tool calls to a Sift service over HTTP, so they are metered and logged by that service. */
const httpDispatch = (root: string, apiKey: string): Tools.Dispatch => async (internal) => {
  const query = internal.query === undefined ? "" : Tools.encodeQuery(internal.query).toString()
  const response = await fetch(`${root}${internal.path}${query === "" ? "" : `?${query}`}`, {
    method: internal.method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      "user-agent": "sift-mcp/0.1.0",
      ...(internal.body === undefined ? {} : { "content-type": "application/json" }),
      ...internal.headers
    },
    ...(internal.body === undefined ? {} : { body: JSON.stringify(internal.body) })
  })
  const text = await response.text()
  try {
    return { status: response.status, body: JSON.parse(text) as unknown }
  } catch {
    return { status: response.status, body: text }
  }
}

/** `sift mcp`: the MCP tools over stdio for local clients, calling a Sift service with the key in `SIFT_API_KEY`. */
export const mcpCommand = Command.make("mcp", { url }, (options) =>
  Effect.gen(function*() {
    const apiKey = Option.fromNullable(process.env.SIFT_API_KEY).pipe(Option.filter((key) => key.trim() !== ""))
    if (Option.isNone(apiKey)) {
      return yield* new CliFailure({ errorCode: "UNAUTHORIZED", message: "Set SIFT_API_KEY to the API key the tools should use", exitCode: ExitCode.invalid })
    }
    const root = options.url.replace(/\/+$/, "").replace(/\/v1$/, "")
    // The MCP SDK is loaded by this command only (not by every `sift` start, nor by `sift serve` before an MCP request).
    const [ToolServer, { StdioServerTransport }] = yield* Effect.promise(() =>
      Promise.all([import("../../Mcp/ToolServer.js"), import("@modelcontextprotocol/sdk/server/stdio.js")]))
    // Standard output carries the protocol only; nothing else may print there.
    yield* Effect.async<void>((resume) => {
      const server = ToolServer.make(httpDispatch(root, apiKey.value), ["api.read", "api.write"])
      server.onclose = () => resume(Effect.void)
      server.connect(new StdioServerTransport()).catch(() => resume(Effect.void))
      process.stdin.once("end", () => void server.close())
    })
  })).pipe(Command.withDescription(
    "Serve the Sift tools (scrape, map, NAICS, logs) to an MCP client over stdio. Calls go to the Sift service at --url " +
      "with the API key in SIFT_API_KEY, metered and logged there."
  ))
