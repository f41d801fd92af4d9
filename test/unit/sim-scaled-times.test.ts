// SPEC 8, 28 (issue 27): on the built-in simulator, the service's guesses at Proxmox durations left at their
// defaults are scaled by sim.timeScale, as the simulator scales Proxmox's.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { withSimScaledTimes } from '../../src/cli/sim-scaled-times.js';

describe('npm start on the simulator: Proxmox durations the service guesses scaled like the simulator (SPEC 8, 28)', () => {
  it('the default first address call (30 s) and the daemon slots\' worst-case scale (1) become 30 × and 1 × sim.timeScale', () => {
    const config = loadConfig({ env: {} });
    expect(config.proxmox.url).to.equal('sim');
    const scaled = withSimScaledTimes(config, {});
    expect(scaled.budgets.firstAddressSeconds).to.be.closeTo(3, 1e-9);
    expect(scaled.proxmox.daemonSlotWorstCaseScale).to.be.closeTo(0.1, 1e-9);
  });

  it('values set in the environment, or other values, are kept', () => {
    const config = loadConfig({ env: {} });
    const fromEnv = withSimScaledTimes(config, { BUDGETS_FIRST_ADDRESS_SECONDS: '30', PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE: '1' });
    expect(fromEnv.budgets.firstAddressSeconds).to.equal(30);
    expect(fromEnv.proxmox.daemonSlotWorstCaseScale).to.equal(1);
    const set = { ...config, budgets: { ...config.budgets, firstAddressSeconds: 12 }, proxmox: { ...config.proxmox, daemonSlotWorstCaseScale: 0.5 } };
    expect(withSimScaledTimes(set, {}).budgets.firstAddressSeconds).to.equal(12);
    expect(withSimScaledTimes(set, {}).proxmox.daemonSlotWorstCaseScale).to.equal(0.5);
  });

  it('a real Proxmox keeps the defaults', () => {
    const config = loadConfig({ env: {} });
    const real = withSimScaledTimes({ ...config, proxmox: { ...config.proxmox, url: 'https://127.0.0.1:8006' } }, {});
    expect(real.budgets.firstAddressSeconds).to.equal(30);
    expect(real.proxmox.daemonSlotWorstCaseScale).to.equal(1);
  });
});
