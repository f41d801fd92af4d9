// The Proxmox API client a worker process uses, built from the config.
import type { Logger } from '../log.js';
import type { Config } from '../config.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import { createHttpApi } from '../proxmox/http-api.js';

export function proxmoxApiFromConfig(config: Config, baseUrl: string, logger?: Logger): ProxmoxApi {
  return createHttpApi({
    baseUrl,
    tokenFile: config.proxmox.tokenFile,
    caFile: config.proxmox.caFile,
    ...(logger === undefined ? {} : { logger }),
    timeouts: { connectMs: config.budgets.connectMs, responseMs: config.budgets.responseMs },
  });
}
