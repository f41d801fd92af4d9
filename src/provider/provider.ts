// createProvider: the Provider the job layer calls (SPEC 10 to 16, 19),
// built on the seam alone.
import type { Provider } from './types.js';
import { createProviderDeps, type ProviderDeps, type ProviderOptions } from './deps.js';
import { getVm } from './get.js';
import { findByName, findByNames, listByTag, listTaggedOrNamed } from './list.js';
import { deleteSeed, listRecordedSeeds, listSeeds } from './seeds.js';
import { createVm } from './create.js';
import { claimVm } from './claim.js';
import { deleteVm } from './delete.js';
import { stopVm } from './stop.js';
import { health } from './health.js';

export function createProvider(options: ProviderOptions): Provider {
  return providerOn(createProviderDeps(options));
}

/** The operations over deps createProviderDeps built; the provider tests' harness keeps the deps to test helpers on them. */
export function providerOn(deps: ProviderDeps): Provider {
  return {
    get: (ref, ctx) => getVm(deps, ref, ctx),
    findByName: (name, ctx) => findByName(deps, name, ctx),
    findByNames: (names, ctx) => findByNames(deps, names, ctx),
    listByTag: (ctx) => listByTag(deps, ctx),
    listTaggedOrNamed: (names, ctx, known) => listTaggedOrNamed(deps, names, ctx, known),
    listSeeds: (ctx) => listSeeds(deps, ctx),
    listRecordedSeeds: (ctx) => listRecordedSeeds(deps, ctx),
    deleteSeed: (seed, ctx) => deleteSeed(deps, seed, ctx),
    create: (spec, ctx) => createVm(deps, spec, ctx),
    claim: (request, ctx) => claimVm(deps, request, ctx),
    delete: (request, ctx) => deleteVm(deps, request, ctx),
    stop: (request, ctx) => stopVm(deps, request, ctx),
    health: (ctx) => health(deps, ctx),
  };
}
