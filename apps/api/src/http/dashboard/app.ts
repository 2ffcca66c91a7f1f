import { existsSync } from "node:fs";
import { join } from "node:path";
import express, { Router } from "express";
import { ApiError } from "../../errors.ts";

/**
 * The dashboard's pages load only from this origin: no CDN, no inline script, no framing.
 * Thumbnails come from the platforms over https; chart.js sets styles from script.
 */
const pageHeaders = {
  "Content-Security-Policy": [
    "default-src 'self'",
    "img-src 'self' data: https:",
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  // A sign-in link's token is in the fragment, which no referrer carries; nothing else should leak either.
  "Referrer-Policy": "no-referrer",
} as const;

/**
 * Serves the built dashboard (`apps/dashboard/dist`) at `/dashboard`: its hashed assets for a
 * year, and `index.html` for every other path under it, where the app routes. Mounted after
 * `/dashboard/api`, whose paths never reach it.
 */
export function dashboardApp(distDir: string): Router {
  const router = Router();
  const indexFile = join(distDir, "index.html");
  router.use("/dashboard/assets", (_req, res, next) => {
    res.set(pageHeaders);
    next();
  });
  router.use(
    "/dashboard/assets",
    express.static(join(distDir, "assets"), {
      immutable: true,
      maxAge: "1y",
      index: false,
      dotfiles: "allow",
      // A missing asset is 404, not the app's page.
      fallthrough: false,
    }),
  );
  router.get(/^\/dashboard(?:\/.*)?$/, (_req, res, next) => {
    if (!existsSync(indexFile)) {
      next(
        new ApiError("not_found", "The dashboard is not built on this server: run `pnpm build` and start it again."),
      );
      return;
    }
    res.set({ ...pageHeaders, "Cache-Control": "no-cache" });
    res.sendFile(indexFile, { dotfiles: "allow" });
  });
  return router;
}
