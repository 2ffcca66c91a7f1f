#!/usr/bin/env node
// The stdio MCP server. It runs the TypeScript sources through tsx, in this process, so an MCP
// client that stops it stops the server itself.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
