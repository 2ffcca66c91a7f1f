import type { Store } from "../store/database.ts";
import type {
  AccountSlots,
  Accounts,
  Authenticator,
  Credits,
  DashboardSessions,
  Idempotency,
  ToolCallAdmissions,
  UsageReports,
} from "./accounts/index.ts";
import type { Batches } from "./batches/index.ts";
import type { ListCursors } from "./cursors/index.ts";
import type { MomentLinks, TranscriptLibrary } from "./library/index.ts";
import type { VideoLists } from "./lists/index.ts";
import type { LiveSessions } from "./live/index.ts";
import type { Monitors } from "./monitors/index.ts";
import type { TranscriptRenderer } from "./renderings/index.ts";
import type { TranscriptJobs } from "./speech/index.ts";
import type { CaptionLanguageLists, Transcripts, VideoMetadataReader } from "./transcripts/index.ts";
import type { WebhookLog, WebhookTargetRule } from "./webhooks/index.ts";

/** The account platform: what every billed endpoint runs through. */
export interface Platform {
  store: Store;
  accounts: Accounts;
  authenticator: Authenticator;
  credits: Credits;
  /** Dashboard sessions and the CLI's sign-in links. */
  dashboard: DashboardSessions;
  idempotency: Idempotency;
  /** Every transcript each account has received, searchable; the transcript service and jobs record into it. */
  library: TranscriptLibrary;
  /** Positions of paged YouTube lists, behind short signed cursors; swept by housekeeping. */
  listCursors: ListCursors;
  /** Requests an account runs at once (docs/decisions.md, rule 7). */
  slots: AccountSlots;
  /** Jobs an account runs at once, on every worker process (its plan's workers). */
  jobSlots: AccountSlots;
  /** The admissions of `POST /mcp` tool calls, held for the API requests the calls make. */
  toolCallAdmissions: ToolCallAdmissions;
  usage: UsageReports;
  /** The webhook deliveries the dashboard and the admin commands show, and redeliver. */
  webhookLog: WebhookLog;
}

/** The services behind the operations; without one, its operations answer 404 as not live yet. */
export interface Services {
  /** One transcript of any input; absent when neither YouTube nor audio sources are configured. */
  transcripts?: Transcripts;
  /** Transcripts of many inputs in one request, through `transcripts`. */
  batches?: Batches;
  /** A source's caption tracks and the languages they translate into. */
  captionLanguages?: CaptionLanguageLists;
  /** What a source says about an item: title, description, chapters, counts, caption tracks. */
  metadata?: VideoMetadataReader;
  /** Speech recognition jobs, as their owners poll them; absent without speech recognition. */
  jobs?: TranscriptJobs;
  /** The rule a `callback_url` must pass; absent without speech recognition, whose jobs are all that call back. */
  callbackTargets?: WebhookTargetRule;
  /** Pages of the lists every listing source reads: channels, profiles, feeds, playlists and searches. */
  lists?: VideoLists;
  monitors?: Monitors;
  /** Live sessions: streams transcribed as they play; absent without live sources and a streaming speech engine. */
  live?: LiveSessions;
  /** Where the library's snippets link to: the moment of an item, as the source serving its platform opens it. */
  links: MomentLinks;
  /** What the deep health check asks besides the database. */
  probes: readonly DependencyProbe[];
  /** Renders large transcripts off the event loop. */
  renderer: TranscriptRenderer;
}

/** A dependency the deep health check asks; it throws when the dependency fails. */
export interface DependencyProbe {
  name: "database" | "queue" | "speech_engine" | "video_platforms";
  check(): Promise<void>;
}
