// The message of the ConfigError a config load must stop with.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/index.js';

export function loadError(env: Record<string, string>): string {
  try {
    loadConfig({ env });
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the config to be refused');
}
