// The warm pools' parts (SPEC 30) as every worker wires them: the config's
// pools, the Redis store, the shape's fingerprint and the provider's claim.
// A worker with no pools configured still gets them, so the members of a
// pool taken out of config drain and a claim recorded before is served.
import type { Config } from '../config/types.js';
import type { PoolMetrics } from '../metrics.js';
import { shapeFingerprint } from '../pools/fingerprint.js';
import { RedisPoolStore } from '../pools/pool-store.js';
import { ClaimLostError } from '../provider/claim-lost.js';
import type { Provider } from '../provider/types.js';
import type { PoolWiring } from './pool-deps.js';

export function configuredPoolWiring(config: Pick<Config, 'pools'>, provider: Pick<Provider, 'claim'>, metrics?: PoolMetrics): PoolWiring {
  return {
    configs: config.pools,
    store: (redis, prefix) => new RedisPoolStore(redis, prefix),
    fingerprint: shapeFingerprint,
    claimVm: (spec, claim, user, ctx, hooks = {}) => provider.claim({ spec, claim, user, ...hooks }, ctx),
    isClaimLost: (err) => err instanceof ClaimLostError,
    ...(metrics ? { metrics } : {}),
  };
}
