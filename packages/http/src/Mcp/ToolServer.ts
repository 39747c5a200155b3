/**
 * The MCP server object shared by both transports (`/mcp` over Streamable HTTP, `sift mcp` over stdio): lists the tools
 * the caller's scopes allow and turns each call into its API request through `dispatch`.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import * as Json from "../internal/json.js"
import * as Tools from "./Tools.js"

/** The name and version clients see. */
export const serverInfo = { name: "sift", title: "Sift", version: "0.1.0" } as const

const result = (status: number, body: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(body) }],
  ...(typeof body === "object" && body !== null && !Array.isArray(body) ? { structuredContent: body as Record<string, unknown> } : {}),
  isError: status !== 200
})

// A tool the scopes do not allow answers like the API's permission error, without calling the API.
const insufficientScope = (tool: Tools.Tool): CallToolResult =>
  result(403, {
    error_code: "INSUFFICIENT_SCOPE",
    message: `The tool ${tool.name} needs the scope ${tool.scope}; this token has read access only`,
    required_scope: tool.scope
  })

// One validator for every server: /mcp makes a server per request, and each would otherwise compile its own Ajv.
const validator = new AjvJsonSchemaValidator()

// Tool listings are computed once per tool list.
const listings = new WeakMap<ReadonlyArray<Tools.Tool>, ReadonlyArray<Record<string, unknown>>>()
const listing = (tools: ReadonlyArray<Tools.Tool>) => {
  let listed = listings.get(tools)
  if (listed === undefined) {
    listed = tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: Tools.inputSchema(tool),
      annotations: { readOnlyHint: tool.scope === "api.read", openWorldHint: true }
    }))
    listings.set(tools, listed)
  }
  return listed
}

/** Makes an MCP server whose tools (by default every API tool) call the API through `dispatch`, for a caller holding `scopes`. */
export const make = (dispatch: Tools.Dispatch, scopes: ReadonlyArray<Tools.Scope>, tools: ReadonlyArray<Tools.Tool> = Tools.tools): Server => {
  const server = new Server(serverInfo, { capabilities: { tools: {} }, jsonSchemaValidator: validator })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing(tools) as Array<{ name: string; inputSchema: { type: "object" } }> }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name)
    if (tool === undefined) {
      return result(404, { error_code: "NOT_FOUND", message: `No tool named ${request.params.name}` })
    }
    if (!Tools.allowed(tool, scopes)) return insufficientScope(tool)
    // Arguments nested deeper than the API accepts are cut one level past its limit: serializing them into the API
    // request cannot overflow the stack, and the API still refuses them with its own error (and logs the refusal).
    const args = request.params.arguments ?? {}
    const bounded = Json.valueNestsDeeper(args) ? Json.cutBelow(args, Json.MAX_DEPTH) as Record<string, unknown> : args
    const response = await dispatch(tool.request(bounded))
    return result(response.status, response.body)
  })
  return server
}
