// Vite config of the admin console: built into dist/console and served by the
// gateway at /console (src/server/console.ts). `npm run build` runs it through
// scripts/build-console.mjs.
import path from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  root: import.meta.dirname,
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: path.resolve(import.meta.dirname, "../dist/console"),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // Inline nothing: the gateway's Content-Security-Policy allows no data: scripts or styles.
    assetsInlineLimit: 0,
  },
});
