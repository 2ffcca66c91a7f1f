import { errorTable } from "@verbatim/contract";
import { describe, expect, it } from "vitest";
import { apiErrorFrom } from "../src/errors.ts";
import {
  AccountError,
  ApiError,
  ContentError,
  errorCodes,
  InputError,
  RequestError,
  ServerError,
  TransientError,
} from "../src/index.ts";

const familyByDigit = {
  1: RequestError,
  2: AccountError,
  3: InputError,
  4: ContentError,
  5: TransientError,
  9: ServerError,
} as const;

describe("the generated error classes", () => {
  it("know every code of the contract's error table with its number and status", () => {
    expect(Object.keys(errorCodes).sort()).toEqual(Object.keys(errorTable).sort());
    for (const [code, row] of Object.entries(errorTable)) {
      expect(errorCodes[code as keyof typeof errorCodes]).toMatchObject({ number: row.number, status: row.status });
    }
  });

  it("throw the class of each code's family, by the thousands digit of its number", () => {
    for (const [code, row] of Object.entries(errorTable)) {
      const error = apiErrorFrom(
        { code, number: row.number, message: row.title, docs: `/docs/errors/${code}` } as never,
        { status: row.status, requestId: "req_1", retryAfter: null },
      );
      const Family = familyByDigit[Math.floor(row.number / 1000) as keyof typeof familyByDigit];
      expect(error, code).toBeInstanceOf(Family);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.name).toBe(Family.name);
      expect(error.retryable, code).toBe(
        row.status === 429 || row.status >= 500 || Math.floor(row.number / 1000) === 5,
      );
    }
  });

  it("carry retry_with and details as the error block gave them", () => {
    const noCaptions = apiErrorFrom(
      { code: "no_captions", number: 4103, message: "m", docs: "d", retry_with: { mode: "audio" } } as never,
      { status: 422, requestId: null, retryAfter: null },
    );
    expect(noCaptions).toMatchObject({ retryWith: { mode: "audio" }, retryable: false });
    const tooLarge = apiErrorFrom(
      { code: "batch_too_large", number: 2002, message: "m", docs: "d", details: { max: 50, sent: 51 } } as never,
      { status: 400, requestId: null, retryAfter: null },
    );
    expect(tooLarge).toMatchObject({ details: { max: 50, sent: 51 } });
  });
});
