export type { components, operations, paths } from "@verbatim/contract";
export {
  AccountError,
  type AccountErrorCode,
  ContentError,
  type ContentErrorCode,
  type ErrorCode,
  errorCodes,
  InputError,
  type InputErrorCode,
  RequestError,
  type RequestErrorCode,
  ServerError,
  type ServerErrorCode,
  TransientError,
  type TransientErrorCode,
} from "../generated/errors.ts";
export {
  ApiError,
  ConnectionError,
  type ErrorBody,
  JobTimeoutError,
  type RetryWith,
  TimeoutError,
  UnexpectedResponseError,
  type ValidationIssue,
  VerbatimError,
  WebhookVerificationError,
} from "./api-error.ts";
export type { BareOr, BareStringOperation, JsonBody, SoleStringKey } from "./bare.ts";
export { type BareClientOptions, createClient, type VerbatimClient } from "./bare-client.ts";
export { sdkVersion, Verbatim, type VerbatimOptions } from "./client.ts";
export { type Segment, toSrt, toText, toVtt } from "./formats.ts";
export { type PageResult, Paginator } from "./pagination.ts";
export type {
  Library,
  LibraryEntry,
  LibraryHit,
  LibraryPageResult,
  LibraryQuery,
  LibrarySearchPageResult,
  LibrarySearchRequest,
  LibraryTranscriptQuery,
  LibraryTranscriptResult,
} from "./resources/library.ts";
export {
  type Live,
  type LiveCreate,
  type LiveEvent,
  type LiveEventOptions,
  type LiveListQuery,
  type LiveSegment,
  type LiveSegmentQuery,
  type LiveSession,
  LiveSessionHandle,
  type LiveSessionPageResult,
} from "./resources/live.ts";
export type {
  MonitorCreate,
  MonitorEvent,
  MonitorEventPageResult,
  MonitorEventQuery,
  Monitors,
  MonitorUpdate,
} from "./resources/monitors.ts";
export type {
  BatchRequest,
  ChannelRequest,
  CompletedJobResult,
  FinishedTranscriptResult,
  JobAcceptedResult,
  JobProgress,
  JobStatusResult,
  LanguagesRequest,
  LanguagesResult,
  ListRow,
  PlaylistRequest,
  SearchRequest,
  TranscriptRequest,
  TranscriptResult,
  Transcripts,
  VideoPageResult,
  WaitOptions,
} from "./resources/transcripts.ts";
export type { Chapter, MetadataRequest, MetadataResult, VideoMetadata, Videos } from "./resources/videos.ts";
export type { RateLimit, ResponseMeta, Result, SuccessBody } from "./result.ts";
export { type ServerSentEvent, serverSentEvents } from "./server-sent-events.ts";
export type { RequestOptions } from "./transport.ts";
export { verifyWebhook, type WebhookEvent, type WebhookHeaders } from "./webhooks.ts";
