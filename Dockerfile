# syntax=docker/dockerfile:1
# The Verbatim service: the compiled API, worker and operator CLI (apps/api/dist) on Node 20, with
# the shipped speech model, ffmpeg and yt-dlp. One image for every role; compose.yaml runs it as API and
# worker processes on one PostgreSQL. linux/amd64 only: the lockfile holds the x64 builds of
# sherpa-onnx and of the static ffmpeg. See the README's "Deployment" section.

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV CI=true
RUN npm install --global --no-fund --no-audit pnpm@12.21.0
WORKDIR /src
# The packages come from the lockfile alone, so a change to the sources reuses this layer.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
# The install also builds the dashboard (the root postinstall); the build bundles the service.
RUN pnpm install --frozen-lockfile --offline \
  && pnpm --filter @verbatim/api build \
  && pnpm --filter @verbatim/api deploy --prod --offline /deploy

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  VERBATIM_DATA_DIR=/var/lib/verbatim
WORKDIR /app
# yt-dlp, which reads every video platform but YouTube, runs on Debian's Python; it checks TLS
# against the system's roots (ca-certificates), which the slim image leaves out.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
  && rm -rf /var/lib/apt/lists/*
# The API package's files (dist, models, migrations) with its production dependencies; the
# workspace packages it uses (the contract's documents, the dashboard's build) are among them.
# Owned by root, so the service cannot change its own code.
COPY --from=build /deploy /app
# yt-dlp's environment where the service looks for it (apps/api/.ytdlp in a checkout), from the
# requirements file the package ships, as scripts/ytdlp-env.mjs makes it outside the image.
RUN python3 -m venv /app/.ytdlp \
  && /app/.ytdlp/bin/pip install --no-cache-dir --disable-pip-version-check \
    --requirement /app/src/sources/ytdlp/requirements.txt \
  && mkdir -p /var/lib/verbatim && chown node:node /var/lib/verbatim
VOLUME /var/lib/verbatim
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/v2/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
