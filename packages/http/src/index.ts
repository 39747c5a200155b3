/**
 * @sift/http: the Sift service and its command line.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
