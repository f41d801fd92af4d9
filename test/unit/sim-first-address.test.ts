// SPEC 8, 28 (issue 27): on the built-in simulator, budgets.firstAddressSeconds at its default is scaled by sim.timeScale.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { withSimFirstAddress } from '../../src/cli/sim-first-address.js';

describe('npm start on the simulator: the first address call scaled like the simulated boot (SPEC 8, 28)', () => {
  it('the default 30 s becomes 30 × sim.timeScale (3 s at the default 0.1)', () => {
    const config = loadConfig({ env: {} });
    expect(config.proxmox.url).to.equal('sim');
    expect(withSimFirstAddress(config, {}).budgets.firstAddressSeconds).to.be.closeTo(3, 1e-9);
  });

  it('a value set in the environment, or another value, is kept', () => {
    const config = loadConfig({ env: {} });
    expect(withSimFirstAddress(config, { BUDGETS_FIRST_ADDRESS_SECONDS: '30' }).budgets.firstAddressSeconds).to.equal(30);
    const set = { ...config, budgets: { ...config.budgets, firstAddressSeconds: 12 } };
    expect(withSimFirstAddress(set, {}).budgets.firstAddressSeconds).to.equal(12);
  });

  it('a real Proxmox keeps the default', () => {
    const config = loadConfig({ env: {} });
    const real = { ...config, proxmox: { ...config.proxmox, url: 'https://127.0.0.1:8006' } };
    expect(withSimFirstAddress(real, {}).budgets.firstAddressSeconds).to.equal(30);
  });
});
