// The console's build: hashed assets under dist/assets (served immutable), index.html (served no-cache).
import preact from "@preact/preset-vite"
import { defineConfig } from "vite"

export default defineConfig({
  plugins: [preact()],
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, assetsDir: "assets", sourcemap: false, target: "es2022" }
})
