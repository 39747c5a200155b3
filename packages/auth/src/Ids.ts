/**
 * Ids and secrets in the formats of decisions §1 (`<prefix>` + 16 base62 characters; secrets of a given length), for
 * every package that mints them.
 *
 * @since 0.1.0
 */
export {
  /** `length` uniformly random base62 characters. */
  base62,
  /** An id such as `mon_` + 16 base62. */
  id
} from "./internal/ids.js"
