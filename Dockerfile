FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
COPY config ./config
RUN npm ci --no-audit --no-fund && npm prune --omit=dev
CMD ["node", "dist/src/cli.js", "all"]
