// The producer client a CLI command opens, from the service's config: its
// Redis, prefix and config, and the fingerprint key file when this host
// has it (answers then show hmacSha256 as the API does; without it, the
// texts' size alone, SPEC 24).
import { existsSync } from 'node:fs';
import type { ProvisionerClientOptions } from '../client.js';
import type { Config } from '../config/index.js';

export function cliClientOptions(config: Config): ProvisionerClientOptions {
  const keyFile = config.http.fingerprintKeyFile;
  return {
    redisUrl: config.redis.url,
    redis: config.redis,
    prefix: config.redis.prefix,
    config,
    ...(existsSync(keyFile) ? { fingerprintKeyFile: keyFile } : {}),
  };
}
