/**
 * @sift/http: the Sift service and its command line.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
export * as Admin from "./Admin.js"
export * as Server from "./Server.js"
export * as ServiceConfig from "./ServiceConfig.js"
export * as App from "./App.js"
export * as ErrorMapping from "./ErrorMapping.js"
export * as QueryParams from "./QueryParams.js"
export * as RequestLog from "./RequestLog.js"
export * as RequestPipeline from "./RequestPipeline.js"
