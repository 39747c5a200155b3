/**
 * Which YouTube URLs get a structured document: videos (`/watch?v=`, `youtu.be/`, `/shorts/`, `/embed/`, `/live/`)
 * and channels (`/@handle`, `/channel/UC…`, `/c/name`, `/user/name`, with or without a tab such as `/videos`).
 */

/** A recognised YouTube target. */
export type YouTubeTarget =
  | { readonly kind: "video"; readonly id: string }
  | { readonly kind: "channel"; readonly path: string }

const hosts = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"])
const videoId = /^[A-Za-z0-9_-]{11}$/

/** The YouTube video or channel a URL points at, if any. */
export const youTubeTarget = (url: string): YouTubeTarget | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const host = parsed.hostname.toLowerCase()
  const parts = parsed.pathname.split("/").filter(Boolean)
  if (host === "youtu.be") return parts[0] !== undefined && videoId.test(parts[0]) ? { kind: "video", id: parts[0] } : undefined
  if (!hosts.has(host)) return undefined
  if (parts[0] === "watch") {
    const id = parsed.searchParams.get("v")
    return id !== null && videoId.test(id) ? { kind: "video", id } : undefined
  }
  if (["shorts", "embed", "live", "v"].includes(parts[0] ?? "") && parts[1] !== undefined && videoId.test(parts[1])) {
    return { kind: "video", id: parts[1] }
  }
  if (parts[0]?.startsWith("@") === true) return { kind: "channel", path: `/${parts[0]}` }
  if (["channel", "c", "user"].includes(parts[0] ?? "") && parts[1] !== undefined) return { kind: "channel", path: `/${parts[0]}/${parts[1]}` }
  return undefined
}
