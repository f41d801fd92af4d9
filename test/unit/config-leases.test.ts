// SPEC 31, SPEC 7: the leases' keys, each documented with its variable,
// defaulting to no lease unless asked, a 7-day bound, a 5-minute warning
// and delete; bad values and keys that disagree stop the load naming the
// key; the producer library reads the same keys (given or published).
import { expect } from 'chai';
import { describeKeys, loadConfig } from '../../src/config/index.js';
import { LEASE_CEILING_SECONDS } from '../../src/config/leases.js';
import { ProducerConfigError, producerConfig } from '../../src/config/producer.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { loadError } from '../support/config-error.js';

describe('config leases.* (SPEC 31, SPEC 7)', () => {
  it('defaults: no lease unless asked, at most 7 days, warned 300 s before, delete at expiry; each key documented with its variable', () => {
    expect(loadConfig({ env: {} }).leases).to.deep.equal({ defaultSeconds: 0, maxSeconds: 604800, warnSeconds: 300, onExpiry: 'delete' });
    const documented = describeKeys().filter((key) => key.path.startsWith('leases.'));
    expect(documented.map((key) => key.env)).to.deep.equal(['LEASES_DEFAULT_SECONDS', 'LEASES_MAX_SECONDS', 'LEASES_WARN_SECONDS', 'LEASES_ON_EXPIRY']);
  });

  it('takes each key from its environment variable', () => {
    const env = { LEASES_DEFAULT_SECONDS: '3600', LEASES_MAX_SECONDS: '86400', LEASES_WARN_SECONDS: '60', LEASES_ON_EXPIRY: 'stop' };
    expect(loadConfig({ env }).leases).to.deep.equal({ defaultSeconds: 3600, maxSeconds: 86400, warnSeconds: 60, onExpiry: 'stop' });
  });

  it('refuses a bad value naming the key', () => {
    expect(loadError({ LEASES_ON_EXPIRY: 'pause' })).to.include('leases.onExpiry');
    expect(loadError({ LEASES_MAX_SECONDS: '-1' })).to.include('leases.maxSeconds');
    expect(loadError({ LEASES_DEFAULT_SECONDS: 'soon' })).to.include('leases.defaultSeconds');
  });

  it('refuses keys that disagree: a default or a warning longer than the bound, a bound past the ceiling', () => {
    expect(loadError({ LEASES_MAX_SECONDS: '600', LEASES_DEFAULT_SECONDS: '601' })).to.match(/leases\.defaultSeconds \(601\) is above leases\.maxSeconds \(600\)/);
    expect(loadError({ LEASES_MAX_SECONDS: '100' })).to.match(/leases\.warnSeconds \(300\) is above leases\.maxSeconds \(100\)/);
    expect(loadError({ LEASES_MAX_SECONDS: String(LEASE_CEILING_SECONDS + 1) })).to.include('leases.maxSeconds');
  });

  it('maxSeconds 0 is no bound but the ceiling, and then any default and warning are accepted', () => {
    const config = loadConfig({ env: { LEASES_MAX_SECONDS: '0', LEASES_DEFAULT_SECONDS: String(30 * 86400), LEASES_WARN_SECONDS: '86400' } });
    expect(limitsFromConfig(config).leases).to.deep.equal({ defaultSeconds: 30 * 86400, maxSeconds: LEASE_CEILING_SECONDS, onExpiry: 'delete' });
  });

  it('the producer library takes the same keys and refuses the same disagreements, naming the key', () => {
    expect(producerConfig({ leases: { defaultSeconds: 60 } }).leases).to.deep.equal({ defaultSeconds: 60, maxSeconds: 604800, warnSeconds: 300, onExpiry: 'delete' });
    expect(() => producerConfig({ leases: { maxSeconds: 100 } })).to.throw(ProducerConfigError, 'config.leases.warnSeconds');
    expect(() => producerConfig({ leases: { maxSeconds: 60, defaultSeconds: 61 } })).to.throw(ProducerConfigError, 'config.leases.defaultSeconds');
    expect(() => producerConfig({ leases: { onExpiry: 'pause' as 'stop' } })).to.throw(ProducerConfigError, 'config.leases.onExpiry');
  });
});
