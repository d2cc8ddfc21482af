import { defineConfig } from "vite";

// Served under /app by the local stack and as the root of the stage's static site.
export default defineConfig({
  root: import.meta.dirname,
  base: process.env.WEB_BASE ?? "/app/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", reportCompressedSize: true },
});
