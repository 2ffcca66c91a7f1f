import { ApiError } from "../../errors.ts";
import type { Store } from "../../store/database.ts";
import { cursorLifetimeMs } from "./list-cursors.ts";
import { SigningKey } from "./signing-key.ts";

const formatVersion = "e1";
const cursorShape = /^e1\.((?:evt|live)_[0-9A-HJKMNP-TV-Z]{26})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Cursors of a list of time-ordered ids (a monitor's events, an account's live sessions):
 * `e1.<last id of the page>.<expiry, Unix seconds>.<base64url HMAC-SHA256>`. The ids sort by
 * time, so the next page is the rows older than the one the cursor names, with no stored
 * position. The signature covers the list's scope (the monitor's id, the account's sessions),
 * which the cursor does not carry, so a cursor pages only the list that issued it, and it
 * expires like list cursors.
 */
export class EventCursors {
  private readonly signingKey: SigningKey;

  constructor(
    store: Store,
    private readonly now: () => Date,
  ) {
    this.signingKey = new SigningKey(store, "event-cursor-signing-key");
  }

  async issue(monitorId: string, lastEventId: string): Promise<string> {
    const expiresAt = Math.floor((this.now().getTime() + cursorLifetimeMs) / 1000);
    const signature = await this.signingKey.sign(signedPart(monitorId, lastEventId, expiresAt));
    return `${formatVersion}.${lastEventId}.${expiresAt}.${signature}`;
  }

  /** The event the page after this cursor starts below; refuses any other cursor with 400 `invalid_cursor`. */
  async read(monitorId: string, cursor: string): Promise<string> {
    const [, eventId, expiresAt, signature] = cursorShape.exec(cursor) ?? [];
    if (eventId === undefined || expiresAt === undefined || signature === undefined) {
      throw invalidCursor("The cursor is malformed. Pass back a next_cursor exactly as it was received.");
    }
    if (!(await this.signingKey.verify(signedPart(monitorId, eventId, Number(expiresAt)), signature))) {
      throw invalidCursor(
        "The cursor was not issued for this list by this server, or was altered. Restart the listing without a cursor.",
      );
    }
    if (Number(expiresAt) * 1000 <= this.now().getTime()) {
      throw invalidCursor("The cursor has expired. Restart the listing without a cursor.");
    }
    return eventId;
  }
}

function signedPart(monitorId: string, eventId: string, expiresAt: number): string {
  return `${formatVersion}.${monitorId}.${eventId}.${expiresAt}`;
}

function invalidCursor(message: string): ApiError {
  return new ApiError("invalid_cursor", message);
}
