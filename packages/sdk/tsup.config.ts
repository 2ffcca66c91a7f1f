import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    target: "node20",
    platform: "node",
    // The contract package is private to the workspace: its types are inlined into the declarations.
    dts: {
      resolve: ["@verbatim/contract"],
      compilerOptions: { paths: { "@verbatim/contract": ["../contract/src/index.ts"] } },
    },
    sourcemap: true,
    // Both builds run at once into dist/: this one clears it but for the command line's files.
    clean: ["!cli.*"],
    treeshake: true,
  },
  {
    // The command line (`bin` when published); tsup keeps its shebang and makes the file executable.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    target: "node20",
    platform: "node",
    sourcemap: true,
    treeshake: true,
  },
]);
