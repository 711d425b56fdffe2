# expertq as a container image: build with the compilers, run with only what serves.
#   docker build -t expertq .
#   docker run -p 8776:8776 -v expertq-data:/data -e SERVICE_API_TOKEN=… expertq
# docs/deployment.md ("Container") says what each part is for and how it was checked.
# test/ops/container-recipe.test.ts runs this file's COPY and RUN steps and starts the result.

FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles where no prebuilt binary can be downloaded.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/expertq
# Dependencies first, so a change to the sources does not reinstall them.
COPY package.json package-lock.json ./
COPY scripts/ ./scripts/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# Keep only the production dependencies (the native binary built above stays; nothing compiles again).
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /opt/expertq
COPY --from=build /opt/expertq/package.json ./
COPY --from=build /opt/expertq/node_modules/ ./node_modules/
COPY --from=build /opt/expertq/dist/ ./dist/
COPY --from=build /opt/expertq/web/index.html ./web/
COPY --from=build /opt/expertq/web/assets/ ./web/assets/
# The configurations: SQLite on the /data volume (the default), or PostgreSQL named by DATABASE_URL.
# Mount your own over /etc/expertq/service.yaml (read-only is fine: edit experts in the file then).
COPY deploy/container/ /etc/expertq/
# The SQLite database, its lock file and backups live on the volume, owned by the user that serves.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
# node:20-bookworm-slim's unprivileged user (uid 1000).
USER node
ENV EXPERTQ_CONFIG=/etc/expertq/service.yaml
EXPOSE 8776
# The slim image has no curl: ask /readyz with node. PORT, when set, overrides server.port.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8776) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself, not npm start, so SIGTERM reaches expertq and it stops within 5 s.
CMD ["node", "dist/cli/main.js", "serve"]
