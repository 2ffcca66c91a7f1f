import { it } from "vitest";
import "./no-such-module.ts";

it("is never collected", () => {});
