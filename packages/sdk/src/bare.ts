import type { operations } from "@verbatim/contract";

/** The JSON body an operation takes, as the contract generates it. */
export type JsonBody<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

type RequiredKeys<Body> = { [Key in keyof Body]-?: object extends Pick<Body, Key> ? never : Key }[keyof Body];

type IsUnion<Type, Whole = Type> = Type extends unknown ? ([Whole] extends [Type] ? false : true) : never;

/**
 * The key of a body's only required field when that field is a string; `never` for a body with
 * none, several, or a required field of another type. Methods name their bare field through this
 * type, so a contract change that adds a second required field fails to compile here.
 */
export type SoleStringKey<Body> =
  RequiredKeys<Body> extends infer Key
    ? [Key] extends [never]
      ? never
      : true extends IsUnion<Key>
        ? never
        : Key extends keyof Body
          ? Body[Key] extends string
            ? Key
            : never
          : never
    : never;

/** A request body, or the value of its only required field alone: `"UC..."` for `{ channel: "UC..." }`. */
export type BareOr<Body> = Body | Body[SoleStringKey<Body>];

/** The operations whose body has exactly one required field, a string: their methods take it bare. */
export type BareStringOperation = {
  [Op in keyof operations]: [SoleStringKey<JsonBody<Op>>] extends [never] ? never : Op;
}[keyof operations];

/** The body a method sends: a bare string becomes the body of that one field, with every other field at its default. */
export function bodyOf<Body extends object>(request: BareOr<Body>, key: SoleStringKey<Body>): Body {
  return (typeof request === "string" ? { [key]: request } : request) as Body;
}
