import { defineConfig } from "tsup";

export default defineConfig({
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
  clean: true,
  treeshake: true,
});
