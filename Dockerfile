# One image for every process type: web, worker, sim, all (SPEC 6).
# Build stage compiles TypeScript with the dev dependencies; the runtime
# stage has production dependencies only, plus openssl for the compose
# init step that makes the simulator's development CA.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
# npm run build also builds the producer library's package (a workspace).
COPY packages/client/package.json packages/client/tsconfig.json ./packages/client/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
COPY jobs ./jobs
RUN npm run build

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY config ./config
# The simulator checks every request against the official API schema (SPEC 8).
COPY vendor/pve-api ./vendor/pve-api
# The default command (`all` on the simulator) creates its secret and state
# files under var/ of the working directory, which is root's: var/ is node's.
RUN mkdir -p /var/lib/pve-provisioner /app/var \
 && chown node:node /var/lib/pve-provisioner /app/var \
 && chmod 700 /app/var
USER node
EXPOSE 8080 8006
CMD ["node", "dist/src/cli.js", "all"]
