export { fetchPage, listingOf, VideoLists } from "./video-lists.ts";
