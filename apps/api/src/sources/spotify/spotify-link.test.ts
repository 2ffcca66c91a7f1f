import { describe, expect, it } from "vitest";
import { parseSpotifyLink } from "./spotify-link.ts";

describe("parseSpotifyLink", () => {
  it.each([
    // yt-dlp's spotify _TESTS, then the forms share menus give
    "https://open.spotify.com/episode/4Z7GAJ50bgctf6uclHlWKo",
    "https://open.spotify.com/embed/episode/4Z7GAJ50bgctf6uclHlWKo?si=7eatS8AbQb6RxqO2raIuWA",
    "https://open.spotify.com/embed-podcast/episode/4Z7GAJ50bgctf6uclHlWKo",
    "https://open.spotify.com/intl-de/episode/4Z7GAJ50bgctf6uclHlWKo?si=abc&nd=1",
    "https://open.spotify.com/intl-pt-BR/episode/4Z7GAJ50bgctf6uclHlWKo/",
    "open.spotify.com/episode/4Z7GAJ50bgctf6uclHlWKo",
  ])("reads %s as the episode", (input) => {
    expect(parseSpotifyLink(input)).toEqual({
      kind: "episode",
      id: "4Z7GAJ50bgctf6uclHlWKo",
      url: "https://open.spotify.com/episode/4Z7GAJ50bgctf6uclHlWKo",
    });
  });

  it("reads a show link as the show, and music as something else", () => {
    expect(parseSpotifyLink("https://open.spotify.com/show/4PM9Ke6l66IRNpottHKV9M?si=x")).toEqual({
      kind: "show",
      id: "4PM9Ke6l66IRNpottHKV9M",
      url: "https://open.spotify.com/show/4PM9Ke6l66IRNpottHKV9M",
    });
    expect(parseSpotifyLink("https://open.spotify.com/track/4th1RQAelzqgY7wL53UGQt")).toMatchObject({ kind: "other" });
    expect(parseSpotifyLink("https://open.spotify.com/episode/too-short")).toMatchObject({ kind: "other" });
  });

  it("leaves other hosts and addresses with credentials alone", () => {
    expect(parseSpotifyLink("https://spotify.example/episode/4Z7GAJ50bgctf6uclHlWKo")).toBeNull();
    expect(parseSpotifyLink("https://a:b@open.spotify.com/episode/4Z7GAJ50bgctf6uclHlWKo")).toBeNull();
  });
});
