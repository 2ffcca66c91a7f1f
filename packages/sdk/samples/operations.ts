// The SDK call of every operation of the contract, as the API reference shows it (`x-codeSamples`).
// Type-checked against the SDK, complete by `satisfies`, and run against a live server by
// apps/api/test/sdk/code-samples.test.ts; scripts/generate-code-samples.mjs turns each body into
// a sample.
import type { OperationId } from "@verbatim/contract";
import { type Verbatim, verifyWebhook } from "../src/index.ts";

/** What a sample may refer to besides the client: ids a reader would have from earlier calls. */
export interface SampleContext {
  jobId: string;
  monitorId: string;
  sessionId: string;
}

type Sample = (verbatim: Verbatim, context: SampleContext) => Promise<unknown>;

/** The operations a client calls; the contract's `on...Webhook` operations are requests Verbatim sends. */
type ClientOperationId = Exclude<OperationId, `on${string}Webhook`>;

export const operationSamples = {
  fetchVideoTranscript: async (verbatim) => {
    const { data, usage } = await verbatim.transcripts.video({
      video: "jNQXAC9IVRw",
      translate_to: "de",
      format: "srt",
      chunk_size: 1000,
    });
    if (data.kind === "transcript_job") return `speech recognition continues as a job: ${data.video_id}`;
    return { srt: data.subtitles, chunks: data.chunks?.length, from: data.source_language, spent: usage.credits_spent };
  },
  listTranscriptLanguages: async (verbatim) => {
    const { data } = await verbatim.transcripts.languages("jNQXAC9IVRw");
    return data.languages.map((track) => `${track.language} (${track.kind}) → ${track.translation_targets.length}`);
  },
  getVideoMetadata: async (verbatim) => {
    const { data } = await verbatim.videos.metadata("https://www.youtube.com/watch?v=ud9d5cMDP_0");
    return { title: data.title, chapters: data.chapters.map((chapter) => `${chapter.start} ${chapter.title}`) };
  },
  fetchTranscriptsBatch: async (verbatim) => {
    const { data } = await verbatim.transcripts.batch({
      video_ids: ["jNQXAC9IVRw", "https://youtu.be/aBcDeFgHiJk"],
      translate_to: "es",
    });
    return data.results.filter((row) => row.outcome === "error");
  },
  getTranscriptJob: async (verbatim, { jobId }) => {
    const job = await verbatim.transcripts.job(jobId);
    return job.status === "completed" ? job.data.text : job.status;
  },
  fetchChannelVideos: async (verbatim) => {
    const videos = [];
    for await (const video of verbatim.transcripts.channelVideos("@jawed")) videos.push(video);
    return videos;
  },
  fetchPlaylistVideos: async (verbatim) => {
    const page = await verbatim.transcripts.playlist({ playlist: "PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI" });
    return page.data.next_cursor;
  },
  searchVideos: async (verbatim) => {
    const first = await verbatim.transcripts.searchVideos({ query: "me at the zoo" }).toArray(10);
    return first;
  },
  me: async (verbatim) => {
    const { data, rateLimit } = await verbatim.me();
    return { credits: data.credits, remaining: rateLimit?.remaining };
  },
  getUsage: async (verbatim) => {
    const { data } = await verbatim.usage({ from: "2026-11-01", to: "2026-11-30" });
    return data.endpoints;
  },
  healthCheck: async (verbatim) => {
    const health = await verbatim.health();
    return health.data.status;
  },
  deepHealthCheck: async (verbatim) => {
    const { data } = await verbatim.deepHealth();
    return data.checks.filter((check) => check.status === "failing");
  },
  createMonitor: async (verbatim) => {
    const { data } = await verbatim.monitors.create({ target: "@jawed", interval_minutes: 60 });
    return { id: data.id, secret: data.webhook_secret };
  },
  listMonitors: async (verbatim) => {
    const { data } = await verbatim.monitors.list();
    return data.monitors.map((monitor) => monitor.id);
  },
  getMonitor: async (verbatim, { monitorId }) => {
    const { data } = await verbatim.monitors.get(monitorId);
    return data.next_check_at;
  },
  updateMonitor: async (verbatim, { monitorId }) => {
    const { data } = await verbatim.monitors.update(monitorId, { status: "paused" });
    return data.status;
  },
  deleteMonitor: async (verbatim, { monitorId }) => {
    const { data } = await verbatim.monitors.delete(monitorId);
    return data.id;
  },
  checkMonitor: async (verbatim, { monitorId }) => {
    const { data } = await verbatim.monitors.check(monitorId);
    return data.new_videos;
  },
  listMonitorEvents: async (verbatim, { monitorId }) => {
    const types = [];
    for await (const event of verbatim.monitors.allEvents(monitorId)) types.push(event.type);
    return types;
  },
  listLibrary: async (verbatim) => {
    const titles = [];
    for await (const entry of verbatim.library.list({ limit: 100 })) titles.push(entry.title);
    return titles;
  },
  getLibraryTranscript: async (verbatim) => {
    const { data } = await verbatim.library.get("youtube:jNQXAC9IVRw", { format: "text", chunk_size: 2000 });
    return data.chunks?.map((chunk) => `${chunk.start}-${chunk.end}: ${chunk.text}`);
  },
  searchLibrary: async (verbatim) => {
    const [hit] = await verbatim.library.search({ query: '"ask not" country' }).toArray(1);
    return hit?.snippets.map((snippet) => `${snippet.url}: ${snippet.highlight}`);
  },
  createLiveSession: async (verbatim) => {
    const session = await verbatim.live.start({ url: "https://radio.example.org/hearings/live.m3u8" });
    for await (const event of session) {
      if (event.type === "live.segment") console.log(`${event.start.toFixed(1)}s ${event.text}`);
    }
    return session.id;
  },
  listLiveSessions: async (verbatim) => {
    const { data } = await verbatim.live.list({ status: "live" });
    return data.sessions.map((session) => `${session.id}: ${session.audio_seconds} s`);
  },
  getLiveSession: async (verbatim, { sessionId }) => {
    const { data } = await verbatim.live.get(sessionId, { after: 0, limit: 100 });
    return data.segments.map((segment) => segment.text).join(" ");
  },
  streamLiveEvents: async (verbatim, { sessionId }) => {
    const words = [];
    for await (const event of verbatim.live.events(sessionId, { lastEventId: 0 })) {
      if (event.type === "live.segment") words.push(event.text);
    }
    return words.join(" ");
  },
  stopLiveSession: async (verbatim, { sessionId }) => {
    const { data } = await verbatim.live.stop(sessionId);
    return { status: data.status, credits: data.credits_spent, library: data.library?.id };
  },
} satisfies Record<ClientOperationId, Sample>;

/** The sample of every webhook: verify the delivery, then branch on its type. */
export const webhookSample = async (rawBody: string, headers: Record<string, string>) => {
  const event = verifyWebhook(rawBody, headers, process.env.VERBATIM_WEBHOOK_SECRET ?? "");
  return event.type === "transcript_job.completed" ? event.data.text : event.type;
};
