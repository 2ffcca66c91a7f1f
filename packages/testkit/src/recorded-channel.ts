import { type FakeReply, type FakeYoutube, fixture, newpipeRecording, newpipeRequest } from "./fake-youtube.ts";

/** The recorded Creative Commons channel, asked for as its legacy user URL (resolve_url, then browse). */
export const channelUrl = "https://www.youtube.com/user/creativecommons";
/** What the recorded Videos tab's first page holds. */
export const recordedFirstPageSize = 30;
/** The uploads `publishNewUploads` puts on top of the tab, newest first. */
export const newUploads = ["GJLlxj_dtq8", "F1xioXWb8CY", "authoredNW1"] as const;

const resolveRecording = "youtubechanneltabextractor/videos/generated_mock_2.json";
const firstPageRecording = "youtubechanneltabextractor/videos/generated_mock_3.json";

/**
 * Serves the recorded channel as a monitor watches it: its URL resolves, and its Videos tab's
 * first page answers with the recorded page until `publishNewUploads`.
 */
export function serveRecordedChannel(fake: FakeYoutube): void {
  fake.replayNewpipe(resolveRecording).replayNewpipe(firstPageRecording);
}

/** The channel's newest page from now on: the recorded one with `newUploads` on top. */
export function publishNewUploads(fake: FakeYoutube): void {
  const { endpoint, fields } = firstPageCall();
  fake.innertube(endpoint, fields, { body: fixture("authored/lists/creativecommons.videos.new-uploads.json") });
}

/** The recorded Videos tab's first-page call: what a rule answering it matches. */
function firstPageCall(): { endpoint: string; fields: Record<string, string> } {
  const { endpoint, body } = newpipeRequest(firstPageRecording);
  return { endpoint, fields: { browseId: String(body.browseId), params: String(body.params) } };
}

/** The recorded first page with `videoId` in place of its newest upload: a new upload on top, the one before gone. */
export function firstPageWithUpload(videoId: string): string {
  const recorded = newpipeRecording(firstPageRecording).body;
  const newest = /"videoId":"([\w-]{11})"/.exec(recorded)?.[1];
  if (!newest) throw new Error(`${firstPageRecording} lists no video`);
  return recorded.replaceAll(newest, videoId);
}

/** Answers the channel's first page with an upload never listed before on every call: each check finds exactly one. */
export function serveFreshUploadOnEveryCall(fake: FakeYoutube): void {
  const { endpoint, fields } = firstPageCall();
  let uploads = 0;
  fake.innertube(endpoint, fields, () => ({
    body: firstPageWithUpload(`upload${String(++uploads).padStart(5, "0")}`),
  }));
}

/** Answers the channel's next first-page call with `reply`, once. */
export function answerFirstPageOnce(fake: FakeYoutube, reply: FakeReply): void {
  const { endpoint, fields } = firstPageCall();
  fake.innertube(endpoint, fields, reply, 1);
}
