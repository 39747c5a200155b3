import { useEffect, useRef, useState } from "preact/hooks"
import uPlot from "uplot"
import "uplot/dist/uPlot.min.css"
import { api, type Org, type SessionView } from "../api"
import { Empty, ErrorBox, Header, Snippet, useLoad, when } from "../ui"

interface Point {
  readonly t: string
  readonly path: string
  readonly requests: number
  readonly credits: number
  readonly errors: number
  readonly rate_limited: number
  readonly cache_hits: number
}
interface Usage {
  readonly range: string
  readonly bucket: "hour" | "day"
  readonly from: string
  readonly to: string
  readonly points: ReadonlyArray<Point>
  readonly org: Org
}

const COLORS = ["#2563eb", "#db2777", "#16a34a", "#ea580c", "#7c3aed", "#0891b2", "#ca8a04", "#64748b"]
const pct = (part: number, whole: number) => (whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)}%`)

/** Buckets from `from` to `to` (every hour or day, UTC), so quiet ones show as zero. */
const buckets = (usage: Usage) => {
  const step = usage.bucket === "hour" ? 3_600_000 : 86_400_000
  const start = Math.floor(new Date(usage.from).getTime() / step) * step
  const times: Array<number> = []
  for (let t = start; t <= new Date(usage.to).getTime(); t += step) times.push(t)
  return times
}

/** One chart: a line per endpoint of `measure` over the range. */
const Chart = ({ usage, measure, title }: { usage: Usage; measure: "requests" | "credits"; title: string }) => {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (box.current === null) return
    const times = buckets(usage)
    const index = new Map(times.map((t, i) => [t, i]))
    const step = usage.bucket === "hour" ? 3_600_000 : 86_400_000
    const totals = new Map<string, number>()
    for (const p of usage.points) totals.set(p.path, (totals.get(p.path) ?? 0) + p[measure])
    const paths = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, COLORS.length).map(([path]) => path)
    const series = paths.map(() => times.map(() => 0))
    for (const p of usage.points) {
      const i = index.get(Math.floor(new Date(p.t).getTime() / step) * step)
      const s = paths.indexOf(p.path)
      if (i !== undefined && s !== -1) series[s]![i]! += p[measure]
    }
    const styles = getComputedStyle(document.documentElement)
    const ink = styles.getPropertyValue("--muted").trim() || "#666"
    const grid = styles.getPropertyValue("--line").trim() || "#ddd"
    const axis = { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
    const plot = new uPlot(
      {
        width: box.current.clientWidth || 600,
        height: 220,
        title,
        series: [{}, ...paths.map((path, i) => ({ label: path, stroke: COLORS[i], width: 2, points: { show: false } }))],
        axes: [axis, { ...axis, size: 50 }],
        scales: { x: { time: true } },
        legend: { live: false }
      },
      [times.map((t) => t / 1000), ...series] as uPlot.AlignedData,
      box.current
    )
    const resized = () => plot.setSize({ width: box.current?.clientWidth ?? 600, height: 220 })
    addEventListener("resize", resized)
    return () => {
      removeEventListener("resize", resized)
      plot.destroy()
    }
  }, [usage, measure])
  return <div class="chart" ref={box} role="img" aria-label={`${title}, by endpoint`} />
}

/** Overview: credits, the cycle, and usage over 24 hours, 7 days or 30 days. */
export const Overview = ({ session }: { session: SessionView }) => {
  const [range, setRange] = useState("24h")
  const [usage, error, loading] = useLoad(() => api<Usage>("GET", "/v1/console/usage", { query: { range } }), [range])
  const points = usage?.points ?? []
  const sum = (key: keyof Omit<Point, "t" | "path">) => points.reduce((n, p) => n + p[key], 0)
  const requests = sum("requests")
  const byPath = new Map<string, { requests: number; credits: number; errors: number }>()
  for (const p of points) {
    const row = byPath.get(p.path) ?? { requests: 0, credits: 0, errors: 0 }
    row.requests += p.requests
    row.credits += p.credits
    row.errors += p.errors
    byPath.set(p.path, row)
  }
  const org = usage?.org ?? session.org
  return (
    <section>
      <Header title="Overview">
        <div role="group" aria-label="Range" class="segmented">
          {["24h", "7d", "30d"].map((r) => (
            <button type="button" key={r} class={r === range ? "" : "secondary"} aria-pressed={r === range} onClick={() => setRange(r)}>
              {r === "24h" ? "24 hours" : r === "7d" ? "7 days" : "30 days"}
            </button>
          ))}
        </div>
      </Header>
      <div class="cards">
        <div class="card stat">
          <span class="muted small">Credits left</span>
          <strong id="credits-left">{org.credits_remaining.toLocaleString()}</strong>
          <span class="small muted">of {org.credits_per_cycle.toLocaleString()} · plan {org.plan}</span>
        </div>
        <div class="card stat">
          <span class="muted small">Cycle ends</span>
          <strong>{org.cycle_end === null ? "Never" : new Date(org.cycle_end).toLocaleDateString()}</strong>
          <span class="small muted">started {new Date(org.cycle_start).toLocaleDateString()}</span>
        </div>
        <div class="card stat">
          <span class="muted small">Requests</span>
          <strong id="requests-total">{requests.toLocaleString()}</strong>
          <span class="small muted">{sum("credits").toLocaleString()} credit{sum("credits") === 1 ? "" : "s"} used</span>
        </div>
        <div class="card stat">
          <span class="muted small">Errors · 429s</span>
          <strong>{pct(sum("errors"), requests)}</strong>
          <span class="small muted">{pct(sum("rate_limited"), requests)} rate limited</span>
        </div>
        <div class="card stat">
          <span class="muted small">Cache hit ratio</span>
          <strong>{pct(sum("cache_hits"), requests)}</strong>
          <span class="small muted">{sum("cache_hits").toLocaleString()} hits</span>
        </div>
      </div>
      <ErrorBox error={error} />
      {loading && usage === undefined ? <p aria-live="polite">Loading…</p> : null}
      {usage !== undefined && points.length === 0 ? (
        <Empty title="No requests in this range yet">
          <p>Create an API key under <a href="#/keys">API keys</a>, then call the API with it; each call shows here within a second.</p>
          <Snippet label="curl" text={`curl -H "Authorization: Bearer $SIFT_API_KEY" "${location.origin}/v1/web/scrape/markdown?url=https://example.com"`} />
        </Empty>
      ) : null}
      {usage !== undefined && points.length > 0 ? (
        <>
          <div class="card"><Chart usage={usage} measure="requests" title={`Requests per ${usage.bucket}`} /></div>
          <div class="card"><Chart usage={usage} measure="credits" title={`Credits per ${usage.bucket}`} /></div>
          <div class="card">
            <h2>By endpoint</h2>
            <div class="table-wrap">
              <table id="usage-table">
                <thead>
                  <tr><th scope="col">Endpoint</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Credits</th><th scope="col" class="num">Errors</th></tr>
                </thead>
                <tbody>
                  {[...byPath.entries()].sort((a, b) => b[1].requests - a[1].requests).map(([path, row]) => (
                    <tr key={path}>
                      <td><a href={`#/logs?path=${encodeURIComponent(path)}`}><code>{path}</code></a></td>
                      <td class="num">{row.requests}</td>
                      <td class="num">{row.credits}</td>
                      <td class="num">{row.errors}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="small muted">Counted per hour as requests are logged; last update {when(usage.to)}.</p>
          </div>
        </>
      ) : null}
    </section>
  )
}
