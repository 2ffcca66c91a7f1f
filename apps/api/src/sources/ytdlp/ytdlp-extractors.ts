/**
 * The yt-dlp extractors (their `ie_key()`, yt-dlp 2026.8.19's `yt_dlp/extractor/_extractors.py`)
 * the sidecar may use by default: single items (one video, clip or post) of the platforms the
 * platforms issue chose, and the profiles `POST /transcripts/channel` lists. A profile extractor
 * only ever lists (sidecar.py keeps the listing extractors of `ytdlpPlatforms` out of its item
 * calls, and reads a page of a profile's entries without resolving them); playlists, searches,
 * stories and live channels are left out. The generic extractor is never allowed (sidecar.py
 * refuses it even when configured): it would fetch any page of any host.
 *
 * - TikTok: www.tiktok.com/@user/video/<id>, /embed/, /share/video/.
 * - TikTokVM: vm.tiktok.com and vt.tiktok.com short links, which redirect to a TikTok video.
 * - TikTokUser: a profile (www.tiktok.com/@user), its posts newest first from TikTok's web API.
 * - InstagramUser: a profile (www.instagram.com/user/), from the profile page's data, which
 *   Instagram serves to signed-in accounts only; yt-dlp marks it broken, and a profile answers as
 *   the sign-in wall it meets, so a yt-dlp that reads one again lists it unchanged.
 * - Instagram: posts and reels (/p/, /reel/, /reels/, /tv/); not InstagramStory (stories expire
 *   within a day and need a login) nor InstagramTag (a hashtag's listing).
 * - Twitter: a post on x.com or twitter.com with its video; TwitterShortener is left out (t.co
 *   links lead anywhere, and only a Twitter URL result would be allowed anyway).
 * - Vimeo: vimeo.com/<id> and player.vimeo.com/video/<id> (one extractor for both in 2026.8.19;
 *   there is no separate player extractor).
 * - Facebook: videos and watch pages; FacebookReel: /reel/<id>, which hands over to Facebook.
 * - Dailymotion: a video (dailymotion.com/video/<xid>, dai.ly/<xid>).
 * - TwitchVod: a past broadcast (twitch.tv/videos/<id>); TwitchClips: a clip.
 * - Loom: loom.com/share/<id> and /embed/<id>.
 *
 * Judged safe and useful, not on by default (each reads a single public item without a login):
 * - Bluesky: posts with video on bsky.app, from the open AT Protocol API; no bot checks.
 * - Reddit: a post's v.redd.it video from the post's public JSON; Reddit rate-limits
 *   unauthenticated clients hard, so expect `blocked` under load.
 * - Streamable: one JSON request per video (ajax.streamable.com), direct MP4 files.
 * - TedTalk: talks with the platform's own subtitles in many languages.
 * - Soundcloud: public tracks (audio only, for transcription); SoundcloudSet and the other
 *   listings stay off.
 */
export const defaultYtdlpExtractors: readonly string[] = [
  "TikTok",
  "TikTokVM",
  "TikTokUser",
  "Instagram",
  "InstagramUser",
  "Twitter",
  "Vimeo",
  "Facebook",
  "FacebookReel",
  "Dailymotion",
  "TwitchVod",
  "TwitchClips",
  "Loom",
];
