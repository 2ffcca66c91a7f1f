// `pnpm platform-double`: the video platforms' test double on 127.0.0.1:8090 (VERBATIM_DOUBLE_PORT),
// for trying TikTok, Instagram, X, Vimeo, Facebook, Dailymotion, Twitch, Loom, Apple Podcasts and
// Spotify links against a server on this machine without a network. It prints how to start the
// server against it.
import { startPlatformDouble } from "./platform-double.ts";

const port = Number(process.env.VERBATIM_DOUBLE_PORT ?? 8090);
const double = await startPlatformDouble({ port });
process.stdout.write(
  `The platform double listens on ${double.proxyUrl}. Start the server against it, from the repository:\n\n` +
    `    VERBATIM_PROXY_URLS=${double.proxyUrl} VERBATIM_CA_FILE=${double.caFile} pnpm start\n\n` +
    "then ask for a link of packages/testkit/fixtures/platforms/*/SOURCE.md, for instance\n" +
    "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001,\n" +
    "https://podcasts.apple.com/us/podcast/podcasting-q-a/id1550000001?i=1000650000001 or\n" +
    "https://open.spotify.com/episode/0VerbatimAskNot0000000. Ctrl-C stops it.\n",
);
const stop = () => {
  double.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
