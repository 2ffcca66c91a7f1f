import { defineConfig } from "tsup";

/**
 * The compiled service: one ESM build of the API and worker (`main`), the operator CLI (`cli`), and
 * the tasks of the parsing and rendering threads, for `node` without a TypeScript loader. The
 * workspace packages export their TypeScript sources, so they are bundled in; every other
 * dependency stays in node_modules.
 * The entries sit directly in dist/, as their sources sit in src/, so paths that modules find
 * relative to the package (`package-files.ts`) are the same in both.
 */
export default defineConfig({
  entry: {
    main: "src/main.ts",
    cli: "src/cli/main.ts",
    "parsing-tasks": "src/adapters/parsing/parsing-tasks.ts",
    "transcript-rendering-tasks": "src/services/renderings/transcript-rendering-tasks.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  outDir: "dist",
  noExternal: [/^@verbatim\//],
  // VERBATIM_TEST_FAULTS can kill the process after a charge: the deployed build leaves it out (src/config.ts).
  // Folding the constant's branches away (minifySyntax) drops their code; names and layout stay readable.
  define: { "import.meta.withoutTestFaults": "true" },
  minifySyntax: true,
  // The maps point into src/ without copying it, so no left-out code ships inside them either.
  sourcemap: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
  clean: true,
});
