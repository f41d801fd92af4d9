// SPEC 25 and 7: the Redis Cluster and Sentinel keys, read from the
// environment in its comma-separated form, and refused at start with the
// key and what is wrong when they cannot work.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { loadError } from '../support/config-error.js';
import { keyPrefixOf, redisModeOf, redisPlaceOf } from '../../src/queue/redis-target.js';

describe('config of Redis Cluster and Sentinel (SPEC 25)', () => {
  it('reads REDIS_CLUSTER_NODES as a comma-separated list and puts the keys under the hash tag', () => {
    const config = loadConfig({ env: { REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7001,[::1]:7002' } });
    expect(config.redis.clusterNodes).to.deep.equal(['10.0.0.1:7000', '10.0.0.2:7001', '[::1]:7002']);
    expect(redisModeOf(config.redis)).to.equal('cluster');
    expect(keyPrefixOf(config.redis.prefix, config.redis)).to.equal('{pvep}');
    expect(redisPlaceOf(config.redis).address).to.equal('cluster 10.0.0.1:7000,10.0.0.2:7001,[::1]:7002');
  });

  it('reads the sentinels and the master name, and keeps the plain prefix there', () => {
    const config = loadConfig({ env: { REDIS_SENTINEL_NODES: 's1:26379,s2:26379', REDIS_SENTINEL_NAME: 'pvep-master' } });
    expect(config.redis.sentinel).to.deep.equal({ nodes: ['s1:26379', 's2:26379'], name: 'pvep-master' });
    expect(redisModeOf(config.redis)).to.equal('sentinel');
    expect(keyPrefixOf(config.redis.prefix, config.redis)).to.equal('pvep');
    expect(redisPlaceOf(config.redis).check).to.include('redis.sentinel.nodes (REDIS_SENTINEL_NODES)');
  });

  it('keeps a single Redis and its plain prefix by default', () => {
    const config = loadConfig({ env: {} });
    expect(redisModeOf(config.redis)).to.equal('single');
    expect(keyPrefixOf(config.redis.prefix, config.redis)).to.equal('pvep');
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    ['a cluster node without a port', { REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2' }, /redis\.clusterNodes: entry 2 \("10\.0\.0\.2"\) is not host:port/],
    ['a cluster node port out of range', { REDIS_CLUSTER_NODES: '10.0.0.1:70000' }, /redis\.clusterNodes: entry 1 .* port from 1 to 65535/],
    ['a sentinel that is not host:port', { REDIS_SENTINEL_NODES: 'redis://s1:26379', REDIS_SENTINEL_NAME: 'm' }, /redis\.sentinel\.nodes: entry 1 .* is not host:port/],
    ['a Cluster and Sentinel at once', { REDIS_CLUSTER_NODES: 'a:7000', REDIS_SENTINEL_NODES: 's:26379', REDIS_SENTINEL_NAME: 'm' }, /redis\.clusterNodes and redis\.sentinel\.nodes are both set/],
    ['sentinels without the master name', { REDIS_SENTINEL_NODES: 's:26379' }, /redis\.sentinel\.name \(REDIS_SENTINEL_NAME\) is empty/],
    ['a master name without sentinels', { REDIS_SENTINEL_NAME: 'm' }, /redis\.sentinel\.nodes \(REDIS_SENTINEL_NODES\) is empty/],
  ];
  for (const [what, env, message] of refused) {
    it(`refuses ${what}, naming the key`, () => {
      expect(loadError(env)).to.match(/^invalid configuration: /).and.match(message);
    });
  }
});
