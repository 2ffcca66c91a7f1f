import { readEpisodePage } from "../audio-sources/episode-pages.ts";
import { parseFeedText } from "../audio-sources/feeds.ts";
import { parsePublisherTranscript, type TranscriptReading } from "../audio-sources/publisher-transcripts.ts";

/**
 * The parsers of fetched documents that may be slow on hostile input (HTML and XML parsers,
 * selectors over deep trees), run by `IsolatedParser` in a worker thread. Arguments and results
 * cross the thread boundary, so they are plain data: addresses travel as strings.
 */
export const parsingTasks = {
  feed: (text: string, feedUrl: string) => parseFeedText(text, new URL(feedUrl)),
  episodePage: (html: string, pageUrl: string) => readEpisodePage(html, new URL(pageUrl)),
  publisherTranscript: (text: string, reading: TranscriptReading) => parsePublisherTranscript(text, reading),
};

export type ParsingTasks = typeof parsingTasks;

/** One task as it is posted to the worker. */
export interface ParsingTask<K extends keyof ParsingTasks = keyof ParsingTasks> {
  name: K;
  args: Parameters<ParsingTasks[K]>;
}

/** Runs a posted task: the worker's whole job. */
export function runParsingTask({ name, args }: ParsingTask): ReturnType<ParsingTasks[keyof ParsingTasks]> {
  return (parsingTasks[name] as (...taskArgs: unknown[]) => ReturnType<ParsingTasks[typeof name]>)(...args);
}
