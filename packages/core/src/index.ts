/**
 * @sift/core: the Sift pipeline as a library.
 *
 * @since 0.1.0
 */
export * as Errors from "./Errors.js"
export * as Html from "./Html.js"
