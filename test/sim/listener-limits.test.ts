// SPEC 24: the simulator's listener has a request timeout and a
// connection bound of its own (sim.*): a body trickled with a valid token
// is cut off, and past the bound a connection is closed on arrival.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { SIM_LISTENER_DEFAULTS } from '../../src/sim/server.js';
import { captureLogger } from '../support/capture-logger.js';
import { eventually, openRaw, slowBodyRequest, type RawConnection } from '../support/raw-connection.js';
import { AUTH, startTestSim, type TestSim } from './sim-helpers.js';

describe('simulator listener limits (SPEC 24)', () => {
  let sim: TestSim;
  let records: Record<string, unknown>[];
  const opened: RawConnection[] = [];
  beforeEach(async () => {
    const captured = captureLogger();
    records = captured.records;
    sim = await startTestSim({ requestTimeoutMs: 1_000, maxConnections: 2, logger: captured.logger });
  });
  afterEach(async () => {
    for (const connection of opened.splice(0)) connection.stop();
    await sim.close();
  });

  async function open(): Promise<RawConnection> {
    const connection = await openRaw(sim.port);
    opened.push(connection);
    return connection;
  }

  it('its limits when none are given are the sim.* defaults of the config, looser than the web\'s http.*', () => {
    const config = loadConfig({ env: {} });
    const { requestTimeoutMs, idleTimeoutMs, maxConnections } = SIM_LISTENER_DEFAULTS;
    expect({ requestTimeoutMs, idleTimeoutMs, maxConnections }).to.deep.equal({ requestTimeoutMs: config.sim.requestTimeoutMs, idleTimeoutMs: config.sim.idleTimeoutMs, maxConnections: config.sim.maxConnections });
    expect(requestTimeoutMs).to.be.greaterThan(config.http.requestTimeoutMs);
    expect(maxConnections).to.be.greaterThan(config.http.maxConnections);
  });

  it('cuts off a body trickled with a valid token after the request timeout', async () => {
    const connection = await open();
    connection.socket.write(slowBodyRequest('/api2/json/nodes/pv1-1/qemu/9001/clone', 8_000, { authorization: AUTH.Authorization, 'content-type': 'application/x-www-form-urlencoded' }, 'newid='));
    connection.trickle('1', 200);
    await eventually('the slow body closed by the simulator', () => connection.isClosed(), 20_000);
    expect(await connection.closed).to.be.at.least(900);
  });

  it('closes a connection past the bound on arrival and warns once', async () => {
    for (let i = 0; i < 2; i++) (await open()).socket.write('GET /api2/json/version HTTP/1.1\r\n');
    const extra = await open();
    await eventually('the connection past the bound closed', () => extra.isClosed(), 20_000);
    expect(extra.received()).to.equal('');
    expect(records.filter((r) => r.level === 40 && r.listener === 'simulator')).to.have.length(1);
  });
});
