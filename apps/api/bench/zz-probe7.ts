import { createHook } from "node:async_hooks";
import { get } from "node:http";
import { listenOnLoopback } from "@verbatim/testkit/listen";
import { createApp } from "../src/app.ts";
import { composeServices } from "../src/compose.ts";
import { createLogger } from "../src/logger.ts";
import { ServiceMetrics } from "../src/metrics.ts";
import { createPlatform } from "../src/platform.ts";
import { openEmbeddedStore } from "../src/store/database.ts";
const n = 250000;
const store = await openEmbeddedStore();
const now = () => new Date();
const logger = createLogger("silent");
const platform = await createPlatform(store, { now });
const { account, key } = await platform.accounts.create({ plan: "scale", name: "x" });
await (async () => {
  const segments = Array.from({ length: n }, (_, i) => ({ start: i * 2, duration: 2, text: `so what we found number ${i}` }));
  await platform.library.record(account.id, { kind: "transcript", video_id: "b", url: null, platform: "file", title: null, channel: null, duration: n * 2, language: "en", source: "audio", caption_kind: null, thumbnail_url: null, speakers: null, speech_engine: null, segments, text: "" } as never);
})();
const deps = { config: { version: "x" }, logger, now, platform, metrics: new ServiceMetrics(), services: composeServices({ platform, now, logger }) };
const server = await listenOnLoopback(createApp(deps as never));
const url = `${server.baseUrl}/api/v2/library/file:b?format=${process.argv[2] ?? "srt&chunk_size=100"}`;
const read = () => new Promise<void>((resolve) => get(url, { headers: { authorization: `Bearer ${key.key}` } }, (r) => { r.on("data", () => {}); r.on("end", resolve); }));
await read();
const types = new Map<number, string>();
const started = new Map<number, number>();
const durations: Array<[number, string, string]> = [];
const hook = createHook({
  init(id, type) { types.set(id, type); },
  before(id) { started.set(id, Number(process.hrtime.bigint() / 1000n)); },
  after(id) { const t = started.get(id); if (t !== undefined) durations.push([Number(process.hrtime.bigint() / 1000n) - t, types.get(id) ?? "?", String(t)]); },
});
hook.enable();
await Promise.all([read(), read()]);
hook.disable();
durations.sort((a, b) => b[0] - a[0]);
for (const d of durations.slice(0, 8)) console.log('WINDOW', d[2], Number(d[2]) + d[0], (d[0]/1000).toFixed(1), d[1]);
await server.close(); await deps.services.renderer.close(); platform.slots.close(); await store.close();
