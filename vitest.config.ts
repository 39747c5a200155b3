import { defineConfig } from "vitest/config"

// Tests import workspace packages from source through the "@sift/source" export condition.
export default defineConfig({
  resolve: { conditions: ["@sift/source"] },
  ssr: { resolve: { conditions: ["@sift/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "bench/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./packages/store/test/support/postgresSetup.ts"],
    reporters: ["default", "./scripts/vitest-summary.ts"]
  }
})
