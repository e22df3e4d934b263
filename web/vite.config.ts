// Builds the page into the Python package (services/web/static), which `verrater serve` serves;
// `make web` runs this, then writes the manifest the staleness test checks.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../services/web/static",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    // One small bundle: no inline scripts or styles, so the door's CSP can forbid them.
    assetsInlineLimit: 0,
  },
});
