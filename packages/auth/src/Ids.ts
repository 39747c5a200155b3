/**
 * Ids and secrets in the formats of decisions §1, re-exported from `@sift/store/Ids` (where id generation lives) for
 * auth's existing callers.
 *
 * @since 0.1.0
 */
export {
  /** `length` uniformly random base62 characters. */
  base62,
  /** An id such as `mon_` + 16 base62. */
  id
} from "@sift/store/Ids"
