#!/usr/bin/env node
// `npx @verbatim/sdk` from a clone of the repository, where dist/ is not built: runs the command
// line's TypeScript sources through tsx, in this process. The published package's bin is
// dist/cli.js, named `verbatim` (publishConfig); in the workspace that name is the operator CLI's
// (apps/api), which the examples, depending on both packages, would get in its place.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
