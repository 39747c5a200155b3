# Sift as a container image: Debian bookworm slim with Node 20, Debian's Chromium, tesseract, poppler and LibreOffice
# (headless) from Debian's own archive, run as an unprivileged user. One image for every role: `sift serve --role
# all|api|worker` (or SIFT_ROLE). See docs/deploy.md (sizing, compose.yaml, upgrades) and docs/configuration.md.
#
# Build: docker build -t sift .     Run: docker run -p 3002:3002 -e DATABASE_URL=... sift

# --- build: the locked dependencies, compiled, then the development ones dropped ----------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# npm ci runs the workspaces' prepare (tsc -b), which needs the sources and the TypeScript configuration.
COPY package.json package-lock.json tsconfig.json tsconfig.base.json tsconfig.test.json ./
COPY scripts ./scripts
COPY packages ./packages
COPY deploy ./deploy
RUN npm ci --no-fund --no-audit \
 && npm run build \
 && npm prune --omit=dev --no-fund --no-audit

# --- runtime -----------------------------------------------------------------------------------------------------
FROM node:20-bookworm-slim
# chromium: rendering and screenshots; tesseract-ocr (+ English data): OCR; poppler-utils: pdftoppm for scanned PDF
# pages; libreoffice-*-nogui: legacy .doc/.xls/.ppt; util-linux: prlimit around LibreOffice; fonts so pages render
# with glyphs; tini: PID 1 that forwards SIGTERM (graceful shutdown) and reaps Chromium's processes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates chromium fonts-liberation fonts-noto-cjk libreoffice-calc-nogui libreoffice-impress-nogui \
      libreoffice-writer-nogui poppler-utils tesseract-ocr tesseract-ocr-eng tini util-linux \
 && rm -rf /var/lib/apt/lists/*

# The unprivileged user the service runs as (no login shell; its home holds LibreOffice's profile).
RUN groupadd --system --gid 10001 sift \
 && useradd --system --uid 10001 --gid sift --home-dir /home/sift --create-home --shell /usr/sbin/nologin sift \
 && mkdir -p /data \
 && chown sift:sift /data

WORKDIR /app
COPY --from=build --chown=root:root /app /app

# MALLOC_*: the allocator settings packages/http/bin/sift.js starts with (its first line says why); the entrypoint
# runs it through node, so they are set here too.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    SIFT_HOST=0.0.0.0 \
    SIFT_PORT=3002 \
    SIFT_DATA_DIR=/data \
    SIFT_CHROMIUM_PATH=/usr/lib/chromium/chromium
USER sift
VOLUME ["/data"]
EXPOSE 3002

# Liveness: /health answers from the moment the port opens, without a key, over plain HTTP on any bind.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SIFT_PORT||3002)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/packages/http/bin/sift.js"]
CMD ["serve"]
