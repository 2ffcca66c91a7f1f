export type { JsonSchema } from "./contract-schemas.ts";
export { createMcpServer, operationOfTool, serverInfo, serverInstructions } from "./server.ts";
export { serverCard } from "./server-card.ts";
export { defaultMaxChars, largestMaxChars, pageOf, type TextPage } from "./text-page.ts";
export { type ToolAnnotations, type ToolDefinition, type ToolResult, toolDefinitions } from "./tools/index.ts";
