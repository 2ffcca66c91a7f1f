import type { components } from "@verbatim/contract";
import { type BareOr, bodyOf, type JsonBody } from "../bare.ts";
import { ApiResource } from "../resource.ts";
import { type Result, type SuccessBody, unwrap } from "../result.ts";
import type { RequestOptions } from "../transport.ts";

/** What `POST /videos/metadata` takes. */
export type MetadataRequest = JsonBody<"getVideoMetadata">;
/** What a source says about one item, without its words. */
export type VideoMetadata = components["schemas"]["VideoMetadata"];
/** One chapter of an item. */
export type Chapter = components["schemas"]["Chapter"];
/** An item's metadata and what reading it charged. */
export type MetadataResult = Result<SuccessBody<"getVideoMetadata">>;

/** What sources say about items, without their words. */
export class Videos extends ApiResource {
  /**
   * An item's metadata (title, description, channel, length, date, tags, chapters, thumbnails,
   * counts, live status and caption tracks), for anything `transcripts.video` takes. 1 credit,
   * nothing when it fails. A string is the `video`.
   */
  metadata(request: BareOr<MetadataRequest>, options?: RequestOptions): Promise<MetadataResult> {
    return unwrap(
      this.client.raw.POST("/videos/metadata", {
        body: bodyOf<MetadataRequest>(request, "video"),
        ...this.callInit(options),
      }),
    );
  }
}
