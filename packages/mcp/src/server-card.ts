import { serverInfo, serverInstructions } from "./server.ts";
import { toolDefinitions } from "./tools/index.ts";

/**
 * The server card served at `/.well-known/mcp/server-card.json`: who the server is, where its
 * Streamable HTTP endpoint is, how to authenticate, and its tools exactly as `tools/list` gives them.
 */
export function serverCard(publicBaseUrl: string) {
  return {
    ...serverInfo,
    description:
      "Transcripts of YouTube, TikTok, Instagram, X, Vimeo, Facebook, Dailymotion, Twitch and Loom videos, podcast episodes, feeds and media files (captions, or speech recognition when there are none), and YouTube search, channel and playlist listings, for LLM pipelines, RAG and agents.",
    instructions: serverInstructions,
    transport: { type: "streamable-http", url: `${publicBaseUrl.replace(/\/+$/, "")}/mcp` },
    authentication: { type: "bearer", schemes: ["bearer"], bearerFormat: "Verbatim API key (vb_live_…)" },
    tools: toolDefinitions,
  };
}
