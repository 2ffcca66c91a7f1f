// The live Verbatim the Python SDK's tests (packages/sdk-python/tests) run against, started by
// their session fixture with `node --import tsx test/support/python-sdk-server.ts`: the API with
// speech recognition jobs and signed job callbacks over the fake YouTube (recorded videos and the
// recorded channel, playlist and search) and a fake media host, and the API with monitors over
// the recorded Creative Commons channel. It prints one JSON line with what the tests need, then
// answers one JSON line per command line read from stdin, and stops when stdin closes.
import { createInterface } from "node:readline";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, playerFromReelRecording, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { answerFirstPageOnce, firstPageWithUpload } from "@verbatim/testkit/recorded-channel";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { startAudioServer } from "../audio/harness.ts";
import { startLiveServer } from "../live/harness.ts";
import { cutRecording, startLiveHlsServer } from "../live/live-hls.ts";
import { startMonitorHarness } from "../monitors/harness.ts";

const privateVideo = "8VajtrESJzA";

const youtube = await FakeYoutube.start();
youtube.serveRecordedVideos();
youtube.player(
  privateVideo,
  playerFromReelRecording("stream/youtubestreamextractordefault/notavailable/privatecontent/generated_mock_1.json"),
);
const lists = registerRecordedLists(youtube);
// Every transcription of media is a job, so the 202 path runs on a short recording.
const api = await startAudioServer({ youtube, inlineAudioSeconds: 0, deliverCallbacks: true, credits: 1000 });
api.host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
const monitors = await startMonitorHarness();
// Live sessions on the API's store (its accounts are the live server's), over loopback HLS of jfk.wav.
const live = await startLiveServer(api.store);
const hls = await startLiveHlsServer();
const jfkSegments = await cutRecording(audioFixture("whisper-cpp/jfk.wav"));
let playlists = 0;

interface Command {
  /**
   * `publish_one_upload`: the channel's next listing holds one upload never listed before.
   * `live_playlist`: a new live HLS playlist of jfk.wav, a 2 s segment every 300 ms, ended after the last.
   */
  command: "account" | "publish_new_uploads" | "publish_one_upload" | "live_playlist";
  /** For `account`: which server, the plan and the credits (null: unlimited). */
  server?: "api" | "monitors" | "live";
  plan?: "free" | "basic" | "pro" | "mega" | "scale";
  credits?: number | null;
}

let uploads = 0;

async function run(command: Command): Promise<Record<string, unknown>> {
  if (command.command === "publish_new_uploads") {
    monitors.publishNewUploads();
    return {};
  }
  if (command.command === "live_playlist") {
    return { url: hls.paced(`python-${++playlists}`, jfkSegments, { intervalMs: 300 }).url };
  }
  if (command.command === "publish_one_upload") {
    const videoId = `pyupload${String(++uploads).padStart(3, "0")}`;
    answerFirstPageOnce(monitors.fake, { body: firstPageWithUpload(videoId) });
    return { videoId };
  }
  const platform = command.server === "monitors" ? monitors.server.platform : api.platform;
  const { account, key } = await platform.accounts.create({
    plan: command.plan ?? "pro",
    credits: command.credits === undefined ? 1000 : command.credits,
    name: "python sdk",
  });
  return { accountId: account.id, apiKey: key.key, webhookSecret: await platform.accounts.webhookSecret(account.id) };
}

process.stdout.write(
  `${JSON.stringify({
    api: { baseUrl: api.baseUrl, apiKey: api.key.key },
    monitors: { baseUrl: monitors.server.baseUrl, channel: "https://www.youtube.com/user/creativecommons" },
    live: { baseUrl: live.baseUrl },
    videos: { ...recordedVideos, private: privateVideo },
    media: { jfk: api.host.url("/media/jfk.mp3") },
    lists: {
      channel: {
        channel: lists.channel.target.kind === "channel" ? lists.channel.target.channel : "",
        videoIds: lists.channel.videoIds,
      },
      playlist: {
        playlist: lists.playlist.target.kind === "playlist" ? lists.playlist.target.playlist : "",
        videoIds: lists.playlist.videoIds,
      },
      search: {
        query: lists.search.target.kind === "search" ? lists.search.target.query : "",
        videoIds: lists.search.videoIds,
      },
    },
  })}\n`,
);

const commands = createInterface({ input: process.stdin });
for await (const line of commands) {
  if (!line.trim()) continue;
  const answer = await run(JSON.parse(line) as Command).catch((error: unknown) => ({ error: String(error) }));
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
await live.close();
await hls.close();
await monitors.close();
await api.close();
await youtube.close();
process.exit(0);
