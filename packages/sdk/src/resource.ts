import type { paths } from "@verbatim/contract";
import type { Client } from "openapi-fetch";
import { callInit, type RequestOptions } from "./transport.ts";

/** What a resource sends its calls through: the `Verbatim` client that made it. */
export interface ResourceClient {
  readonly raw: Client<paths>;
  fetchFor(options?: RequestOptions): (request: Request) => Promise<Response>;
  /**
   * A GET whose answer is read as it arrives (server-sent events): the client's headers and
   * these, no retry, no deadline once the answer has begun. An error answer is thrown.
   */
  openStream(path: string, init: { headers: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
}

/**
 * A group of the API's operations (`transcripts`, `monitors`, `library`). It knows the client
 * only by the shape it uses, so the client imports the resources and never the other way round.
 */
export abstract class ApiResource {
  constructor(protected readonly client: ResourceClient) {}

  /** What a call gives openapi-fetch beside its path, parameters and body. */
  protected callInit(options?: RequestOptions): ReturnType<typeof callInit> {
    return callInit(this.client, options);
  }
}
