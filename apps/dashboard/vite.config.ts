import { defineConfig } from "vite";

export default defineConfig({
  // The API serves dist/ at /dashboard, with every unknown path under it answered by index.html.
  base: "/dashboard/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, assetsInlineLimit: 0 },
  server: { proxy: { "/api": "http://127.0.0.1:8080", "/dashboard/api": "http://127.0.0.1:8080" } },
});
