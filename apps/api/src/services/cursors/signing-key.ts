import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Store } from "../../store/database.ts";
import { serviceSecrets } from "../../store/schema.ts";

/**
 * An HMAC-SHA256 key shared by every process of a deployment: it lives in `service_secrets`
 * under its name, created by whichever process needs it first.
 */
export class SigningKey {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly store: Store,
    private readonly name: string,
  ) {}

  /** The base64url signature of `signed` (43 characters). */
  async sign(signed: string): Promise<string> {
    return createHmac("sha256", await this.load())
      .update(signed)
      .digest("base64url");
  }

  /** Whether `signature` is the signature of `signed`, compared in constant time. */
  async verify(signed: string, signature: string): Promise<boolean> {
    const expected = Buffer.from(await this.sign(signed), "base64url");
    const received = Buffer.from(signature, "base64url");
    return received.length === expected.length && timingSafeEqual(received, expected);
  }

  private load(): Promise<Buffer> {
    this.key ??= this.loadOrCreate().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  /** Creates the key if no process has yet (the first insert wins), then reads the one that won. */
  private async loadOrCreate(): Promise<Buffer> {
    await this.store.db
      .insert(serviceSecrets)
      .values({ name: this.name, value: randomBytes(32).toString("base64url") })
      .onConflictDoNothing();
    const [row] = await this.store.db
      .select({ value: serviceSecrets.value })
      .from(serviceSecrets)
      .where(eq(serviceSecrets.name, this.name));
    if (!row) throw new Error(`service secret ${this.name} missing right after its insert`);
    return Buffer.from(row.value, "base64url");
  }
}
