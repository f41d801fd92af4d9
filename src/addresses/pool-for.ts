// Which address pool a create's VM takes its lease from (SPEC 29). The
// VM's network is its own bridge and vlanTag, else its node's; the pool is
// the one configured for exactly that bridge and tag (no tag matches only
// a pool without one). A create that names no node may land on any node
// serving its image: when those nodes are on networks of different pools
// (or some on none), the door cannot know the address before placement,
// so it refuses and asks for a node or a bridge. A node without a bridge
// uses its template's, which the door does not know: no pool, unless the
// create names the bridge. docs/decisions.md.
import type { NetworkPoolConfig, NodeConfig } from '../config/types.js';

/** A node's net0 as configured: bridge and VLAN tag, each maybe absent. */
export type NodeNetwork = Pick<NodeConfig, 'bridge' | 'vlanTag'>;

/** What the choice reads of config. */
export interface NetworkLimits {
  pools: NetworkPoolConfig[];
  /** Each configured node's network, by node name. */
  nodes: Record<string, NodeNetwork>;
}

/** What the choice reads of a create. */
export interface PoolAsk {
  node?: string;
  bridge?: string;
  vlanTag?: number;
}

export type PoolChoice = { kind: 'pool'; pool: NetworkPoolConfig } | { kind: 'none' } | { kind: 'refused'; message: string };

/** The pool for one bridge and tag; none when the bridge is not known. */
export function poolOfNetwork(pools: readonly NetworkPoolConfig[], bridge: string | undefined, vlanTag: number | undefined): NetworkPoolConfig | undefined {
  if (bridge === undefined) return undefined;
  return pools.find((pool) => pool.bridge === bridge && pool.vlanTag === vlanTag);
}

function poolOfNode(ask: PoolAsk, node: string, networks: NetworkLimits): NetworkPoolConfig | undefined {
  const own = networks.nodes[node] ?? {};
  return poolOfNetwork(networks.pools, ask.bridge ?? own.bridge, ask.vlanTag ?? own.vlanTag);
}

function inWords(pool: NetworkPoolConfig | undefined): string {
  return pool === undefined ? 'no pool' : `pool ${pool.name}`;
}

function listed(names: string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/**
 * The pool of a create: its node's, or, with no node named, the one pool
 * every node in `candidates` (the nodes serving its image) agrees on.
 */
export function choosePool(ask: PoolAsk, candidates: readonly string[], networks: NetworkLimits): PoolChoice {
  const nodes = ask.node === undefined ? candidates : [ask.node];
  const pools = nodes.map((node) => poolOfNode(ask, node, networks));
  const first = pools[0];
  if (pools.some((pool) => pool?.name !== first?.name)) {
    const each = nodes.map((node, i) => `${node}: ${inWords(pools[i])}`).join(', ');
    return { kind: 'refused', message: `nodes ${listed([...nodes])} are on different networks (${each}); name a node or a bridge` };
  }
  return first === undefined ? { kind: 'none' } : { kind: 'pool', pool: first };
}
