/**
 * A loaded page: the original response (kept byte for byte for the `bytes` output and the cache) plus when it was
 * fetched. The rendered DOM of a browser load will join it when rendering lands.
 */
import { frame, unframe } from "../cacheFrame.js"

export interface LoadedPage {
  readonly requestedUrl: string
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string | undefined
  readonly body: Uint8Array
  /** Epoch milliseconds of the fetch (the cache age is measured from it). */
  readonly fetchedAt: number
}

interface StoredHeader {
  readonly v: 1
  readonly requestedUrl: string
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string | null
  readonly fetchedAt: number
}

/** Serialises a page for the cache: a 4-byte header length, the JSON header, then the body. */
export const encodePage = (page: LoadedPage): Uint8Array => {
  const header: StoredHeader = {
    v: 1,
    requestedUrl: page.requestedUrl,
    url: page.url,
    status: page.status,
    headers: page.headers,
    contentType: page.contentType ?? null,
    fetchedAt: page.fetchedAt
  }
  return frame(header, page.body)
}

/** Reads a page written by `encodePage`; undefined for anything else (an old or damaged entry is a miss). */
export const decodePage = (bytes: Uint8Array): LoadedPage | undefined => {
  const entry = unframe(bytes)
  if (entry === undefined) return undefined
  const header = entry.header as unknown as StoredHeader
  if (header.v !== 1) return undefined
  return {
    requestedUrl: header.requestedUrl,
    url: header.url,
    status: header.status,
    headers: header.headers,
    contentType: header.contentType ?? undefined,
    body: entry.body.slice(),
    fetchedAt: header.fetchedAt
  }
}
