import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, fromFixture, playerFromReelRecording } from "@verbatim/testkit/fake-youtube";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose, poll, pollUntilFinished } from "../audio/requests.ts";
import { type Answer, expectErrorEnvelope, send } from "../support/http.ts";
import { transcriptWordBreaches } from "../support/word-rules.ts";

// words: true over real HTTP, from each source to the answer: YouTube's automatic captions (the
// authored json3 track with word offsets, packages/testkit/fixtures/youtube/authored/SOURCE.md),
// a TikTok item through the platform double and the real yt-dlp, and podcast episodes through the
// fake host (speech of jfk.mp3, and the authored karaoke WebVTT as the publisher's transcript).

/** The only track of this recorded video is an automatic English one: the tests serve the JFK json3 for it. */
const autoCaptioned = "it3OtbTxQk0";
/** A recorded video with a manual English track (srv3), whose cues time no word. */
const manuallyCaptioned = "GJLlxj_dtq8";
const tiktokCaptions = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001";
const tiktokSpeech = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000002";
const feedPath = "/feeds/transcript-formats.xml";

/** Where "country" begins in the JFK recording, twice: whisper.cpp's word boundaries (shared fixtures, whisper-cpp/SOURCE.md). */
const countrySpoken = [5.66, 10.02];

let youtube: FakeYoutube;
let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  youtube = await FakeYoutube.start();
  youtube
    .player(
      autoCaptioned,
      playerFromReelRecording("stream/youtubestreamextractordefault/ratingsdisabled/generated_mock_1.json"),
    )
    .timedtext({ v: autoCaptioned, lang: "en", kind: "asr" }, fromFixture("authored/jfk.en-asr.json3"))
    .player(manuallyCaptioned, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: manuallyCaptioned, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"));
  double = await startPlatformDouble();
  // Speech of 11 s becomes a job: the poll is where its words are asked for.
  server = await startAudioServer({
    youtube,
    platformDouble: double,
    credits: 10_000,
    inlineAudioSeconds: 5,
    deliverCallbacks: true,
  });
  const host = server.host;
  host.serveFixture(feedPath, "verbatim/transcript-formats.xml", "application/rss+xml; charset=utf-8", {
    replace: { "https://podcasts.example/": host.url("/") },
  });
  // The VTT episode's transcript is the karaoke file: a publisher's transcript with cue timestamps.
  host.serveFixture("/transcripts/example.vtt", "verbatim/jfk-karaoke.vtt", "text/vtt");
  for (const slug of ["vtt", "plain"])
    host.serveFile(`/media/ep-${slug}.mp3`, audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  host.serve("/hooks/words", { body: "", contentType: "text/plain" });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
  await youtube?.close();
});

async function balance(): Promise<number> {
  return (await server.platform.credits.balance(server.account.id)) as number;
}

/** The transcript of a 200, its words kept to the rules; fails the test on anything else. */
function wordedTranscript(answer: Answer): Loose {
  expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
  const { data } = answer.body as Loose;
  expect(transcriptWordBreaches(data.segments)).toEqual([]);
  return data;
}

/** Every word of a transcript, in order. */
function wordsOf(data: Loose): Loose[] {
  return data.segments.flatMap((segment: Loose) => segment.words);
}

function countryStarts(data: Loose): number[] {
  return wordsOf(data)
    .filter((word) => /^country\b/i.test(word.text))
    .map((word) => word.start);
}

/** The finished job of a 202, polled with `?words=true` until it completes. */
async function finishedJob(accepted: Answer, query = "?words=true"): Promise<Loose> {
  expect(accepted.status, accepted.text).toBe(202);
  const pollUrl = `${(accepted.body as Loose).poll_url}${query}`;
  const { answer } = await pollUntilFinished(server, pollUrl, 60_000);
  expect((answer.body as Loose).status, answer.text.slice(0, 2000)).toBe("completed");
  return answer;
}

describe("YouTube automatic captions: json3 word offsets, word_timing source", () => {
  let first: Loose;

  it("times each word where the track does, for 1 credit as without words", async () => {
    const before = await balance();
    const answer = await fetchTranscript(server, { video: autoCaptioned, words: true });
    first = wordedTranscript(answer);
    expect(first).toMatchObject({
      platform: "youtube",
      source: "captions",
      caption_kind: "auto",
      word_timing: "source",
    });
    expect(first.segments[0].words.slice(0, 3)).toEqual([
      { text: "and", start: 0, duration: 0.42 },
      { text: "so", start: 0.42, duration: 0.22 },
      { text: "my", start: 0.64, duration: 0.21 },
    ]);
    expect(countryStarts(first)).toEqual(countrySpoken);
    expect((answer.body as Loose).usage.credits_spent).toBe(1);
    expect(await balance()).toBe(before - 1);
  });

  it("answers without word times when words are not asked for, from the store, still 1 credit", async () => {
    const upstreamCalls = youtube.requests.length;
    const before = await balance();
    const answer = await fetchTranscript(server, { video: autoCaptioned });
    expect(answer.status, answer.text).toBe(200);
    const { data, usage } = answer.body as Loose;
    expect(data.word_timing).toBeUndefined();
    expect(data.segments.map((segment: Loose) => Object.keys(segment).sort())).toEqual(
      data.segments.map(() => ["duration", "start", "text"]),
    );
    expect(usage.credits_spent).toBe(1);
    expect(await balance()).toBe(before - 1);
    expect(youtube.requests.length).toBe(upstreamCalls);
  });

  it("answers the same word times from the store, without another upstream call", async () => {
    const upstreamCalls = youtube.requests.length;
    const answer = await fetchTranscript(server, { video: `https://youtu.be/${autoCaptioned}`, words: true });
    expect(wordedTranscript(answer)).toEqual(first);
    expect(youtube.requests.length).toBe(upstreamCalls);
  });

  it('writes WebVTT cue timestamps with format "vtt"', async () => {
    const answer = await fetchTranscript(server, { video: autoCaptioned, words: true, format: "vtt" });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data.word_timing).toBe("source");
    expect(data.subtitles).toContain(
      "00:00:04.140 --> 00:00:08.430\nnot <00:00:04.680>what <00:00:05.140>your <00:00:05.660>country <00:00:06.240>can <00:00:06.590>do\n",
    );
  });

  it("times the words of a batch's rows, for 1 credit a row", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/batch",
      json: { video_ids: [autoCaptioned], words: true },
    });
    expect(answer.status, answer.text).toBe(200);
    const { data, usage } = answer.body as Loose;
    const [row] = data.results;
    expect(row).toMatchObject({ outcome: "ok", word_timing: "source" });
    expect(transcriptWordBreaches(row.segments)).toEqual([]);
    expect(countryStarts(row)).toEqual(countrySpoken);
    expect(usage.credits_spent).toBe(1);
  });

  it("reads the word times back from the library, free, in segments and in WebVTT", async () => {
    const before = await balance();
    const read = await send(server, { method: "GET", path: `/api/v2/library/youtube:${autoCaptioned}?words=true` });
    const data = wordedTranscript(read);
    expect(data.word_timing).toBe("source");
    expect(countryStarts(data)).toEqual(countrySpoken);
    const vtt = await send(server, {
      method: "GET",
      path: `/api/v2/library/youtube:${autoCaptioned}?words=true&format=vtt`,
    });
    expect(vtt.status, vtt.text).toBe(200);
    expect((vtt.body as Loose).data.subtitles).toContain("<00:00:05.660>country");
    expect(await balance()).toBe(before);
  });

  it("links a library search's match to the word that matched, not the start of its segment", async () => {
    const answer = await send(server, { method: "POST", path: "/api/v2/library/search", json: { query: "country" } });
    expect(answer.status, answer.text).toBe(200);
    const hit = (answer.body as Loose).data.hits.find((entry: Loose) => entry.id === `youtube:${autoCaptioned}`);
    // "country" is spoken at 5.66 s in the line that starts at 4.14 s.
    expect(hit?.snippets[0]).toMatchObject({
      start: 5.66,
      url: `https://www.youtube.com/watch?v=${autoCaptioned}&t=5s`,
    });
  });

  it("answers estimated word times for a transcript stored before they were kept, until fetched again", async () => {
    await server.store.db.execute(
      sql`update stored_transcripts set segment_words = null where video_id = ${autoCaptioned}`,
    );
    const entry = await server.store.query<{ id: string }>(
      sql`select id from library_entries where video_key = ${`youtube:${autoCaptioned}`}`,
    );
    await server.store.db.execute(
      sql`update library_passages set word_starts = null, word_durations = null where entry_id = ${entry[0]?.id}`,
    );
    const upstreamCalls = youtube.requests.length;
    const stored = wordedTranscript(await fetchTranscript(server, { video: autoCaptioned, words: true }));
    expect(stored.word_timing).toBe("estimated");
    // "and" is 3 of the 25 characters of words in its 5.66 s cue.
    expect(stored.segments[0].words[0]).toEqual({ text: "and", start: 0, duration: 0.679 });
    expect(youtube.requests.length).toBe(upstreamCalls);
    const read = await send(server, { method: "GET", path: `/api/v2/library/youtube:${autoCaptioned}?words=true` });
    expect(wordedTranscript(read).word_timing).toBe("estimated");
    const search = await send(server, { method: "POST", path: "/api/v2/library/search", json: { query: "country" } });
    const hit = (search.body as Loose).data.hits.find((entry: Loose) => entry.id === `youtube:${autoCaptioned}`);
    expect(hit?.snippets[0].start).toBe(4.14);
  });
});

describe("YouTube manual captions: no word times in the track, word_timing estimated", () => {
  it("spreads each cue's words over it by their characters", async () => {
    const data = wordedTranscript(
      await fetchTranscript(server, { video: manuallyCaptioned, language: "en", words: true }),
    );
    expect(data).toMatchObject({ caption_kind: "manual", word_timing: "estimated" });
    expect(data.segments[0]).toEqual({
      start: 0,
      duration: 2.31,
      text: "Microsoft's Surface Go is the smallest",
      words: [
        { text: "Microsoft's", start: 0, duration: 0.77 },
        { text: "Surface", start: 0.77, duration: 0.49 },
        { text: "Go", start: 1.26, duration: 0.14 },
        { text: "is", start: 1.4, duration: 0.14 },
        { text: "the", start: 1.54, duration: 0.21 },
        { text: "smallest", start: 1.75, duration: 0.56 },
      ],
    });
  });
});

describe("400 invalid_request: words in a format without word times, free", () => {
  it.each([
    [{ format: "srt" }, 'format "srt"'],
    [{ format: "text" }, 'format "text"'],
    [{ timestamps: false }, 'format "text"'],
  ])("refuses words with %j (1001, /body/words) before anything is fetched", async (options, named) => {
    const before = await balance();
    const upstreamCalls = youtube.requests.length;
    const answer = await fetchTranscript(server, { video: autoCaptioned, words: true, ...options });
    expectErrorEnvelope(answer, 400, "invalid_request");
    const { error } = answer.body as Loose;
    expect(error.number).toBe(1001);
    expect(error.message).toContain(named);
    expect(error.issues).toEqual([{ path: "/body/words", message: expect.stringContaining(named) }]);
    expect(youtube.requests.length).toBe(upstreamCalls);
    expect(await balance()).toBe(before);
  });

  it("refuses ?words=true with format=srt on a library read (1001, /query/words)", async () => {
    const answer = await send(server, {
      method: "GET",
      path: `/api/v2/library/youtube:${autoCaptioned}?words=true&format=srt`,
    });
    expectErrorEnvelope(answer, 400, "invalid_request");
    expect((answer.body as Loose).error.issues).toEqual([{ path: "/query/words", message: expect.any(String) }]);
  });
});

describe("TikTok through the platform double and yt-dlp", () => {
  it("estimates the words of its WebVTT captions, which carry no cue timestamps", async () => {
    const data = wordedTranscript(await fetchTranscript(server, { video: tiktokCaptions, words: true }));
    expect(data).toMatchObject({ platform: "tiktok", source: "captions", word_timing: "estimated" });
    expect(data.segments[0].words[0]).toMatchObject({ text: "And", start: 0.3 });
  });

  it("times the words of its speech where they are spoken (word_timing source), in the job's poll", async () => {
    const accepted = await fetchTranscript(server, { video: tiktokSpeech, words: true });
    const { data } = (await finishedJob(accepted)).body as Loose;
    expect(transcriptWordBreaches(data.segments)).toEqual([]);
    expect(data).toMatchObject({ platform: "tiktok", source: "audio", word_timing: "source" });
    countryStarts(data).forEach((start, index) => {
      expect(Math.abs(start - (countrySpoken[index] ?? 0)), JSON.stringify(wordsOf(data))).toBeLessThan(0.3);
    });
  });
});

describe("podcast episodes", () => {
  const feedUrl = () => server.host.url(feedPath);

  it("times the words of speech (word_timing source) in the poll with ?words=true, and in the callback the request asked them for", async () => {
    const before = await balance();
    const accepted = await fetchTranscript(server, {
      video: feedUrl(),
      episode: "verbatim-ep-plain",
      mode: "audio",
      words: true,
      callback_url: server.host.url("/hooks/words"),
    });
    const finished = (await finishedJob(accepted)).body as Loose;
    const { data, usage } = finished;
    expect(transcriptWordBreaches(data.segments)).toEqual([]);
    expect(data).toMatchObject({ platform: "podcast", source: "audio", word_timing: "source" });
    expect(countryStarts(data)).toHaveLength(2);
    countryStarts(data).forEach((start, index) => {
      expect(Math.abs(start - (countrySpoken[index] ?? 0)), JSON.stringify(wordsOf(data))).toBeLessThan(0.3);
    });
    // 11 s of audio: 1 credit, as without words.
    expect(usage.credits_spent).toBe(1);
    expect(await balance()).toBe(before - 1);

    const plain = await poll(server, (accepted.body as Loose).poll_url);
    const { data: wordless } = plain.body as Loose;
    expect(wordless.word_timing).toBeUndefined();
    expect(wordless.segments.some((segment: Loose) => segment.words !== undefined)).toBe(false);

    const [callback] = await eventually(() => {
      const delivered = server.host.requestsTo("/hooks/words");
      return delivered.length > 0 ? delivered : null;
    }, 20_000);
    const delivered = JSON.parse(callback?.body ?? "{}");
    expect(delivered).toMatchObject({ type: "transcript_job.completed", data: { word_timing: "source" } });
    expect(delivered.data.segments).toEqual(data.segments);
  });

  it("times the words of a karaoke WebVTT transcript by its cue timestamps; its one untimed cue makes it estimated", async () => {
    const data = wordedTranscript(
      await fetchTranscript(server, { video: feedUrl(), episode: "verbatim-ep-vtt", words: true }),
    );
    expect(data).toMatchObject({ platform: "podcast", caption_kind: "publisher", word_timing: "estimated" });
    expect(countryStarts(data)).toEqual(countrySpoken);
    expect(data.segments.at(-1)).toEqual({
      start: 11,
      duration: 1.5,
      text: "(applause & cheers)",
      // 9, 1 and 7 of its 17 characters of words, over 1.5 s.
      words: [
        { text: "(applause", start: 11, duration: 0.794 },
        { text: "&", start: 11.794, duration: 0.088 },
        { text: "cheers)", start: 11.882, duration: 0.618 },
      ],
    });
  });
});
