// A load generator in its own process (for profile.ts): N requests in flight to URL+PATH for S seconds; prints the count.
import { Pool } from "undici"
const [url, path, secret, seconds, concurrency = "32"] = process.argv.slice(2)
const headers = { authorization: `Bearer ${secret}` }
const pool = new Pool(url, { connections: Number(concurrency), pipelining: 1 })
let count = 0
const end = performance.now() + Number(seconds) * 1000
await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
  while (performance.now() < end) {
    const response = await pool.request({ path, method: "GET", headers })
    await response.body.arrayBuffer()
    count++
  }
}))
await pool.close()
console.log(count)
