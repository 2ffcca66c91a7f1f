import type { Innertube } from "youtubei.js";
import { UpstreamError } from "./upstream-errors.ts";

/** One raw InnerTube call; transport failures arrive as `UpstreamError` from the upstream fetch. */
export async function callInnertube(yt: Innertube, endpoint: string, args: Record<string, unknown>): Promise<unknown> {
  try {
    const response = await yt.actions.execute(endpoint, { ...args, parse: false });
    return response.data;
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    if (error instanceof SyntaxError) {
      throw new UpstreamError("unparseable", `YouTube's ${endpoint} answer is not JSON.`, undefined, { cause: error });
    }
    throw new UpstreamError("failed", `The ${endpoint} call to YouTube failed.`, undefined, { cause: error });
  }
}
