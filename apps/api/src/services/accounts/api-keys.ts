import { hash, randomInt } from "node:crypto";

const keyPrefix = "vb_live_";
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const secretLength = 32;

/** The shape of an API key: `vb_live_` and 32 base62 characters. */
export const apiKeyPattern = /^vb_live_[0-9A-Za-z]{32}$/;

/** A new API key. It is shown once; only its hash is stored. */
export function generateApiKey(): string {
  let secret = "";
  for (let index = 0; index < secretLength; index++) secret += alphabet[randomInt(alphabet.length)];
  return keyPrefix + secret;
}

/**
 * The stored form of a key (and of a dashboard session's secret or a sign-in link's token): hex
 * SHA-256. Every authenticated request computes it: the one-shot `hash` costs a sixth of a `Hash` object.
 */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** The part of a key shown in listings, enough to recognise it and useless to an attacker. */
export function displayPrefixOf(key: string): string {
  return `${key.slice(0, keyPrefix.length + 4)}…`;
}
