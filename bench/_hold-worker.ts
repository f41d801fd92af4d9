// A worker process for bench/memory.ts: the real worker service on the
// config from the environment (SPEC 7), with a provider whose creates hold
// until cancelled, so running jobs stay running while RSS is read.
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/log.js';
import type { CreateResult, CreateSpec, OperationContext } from '../src/provider/types.js';
import { startWorkerService } from '../src/worker/service.js';
import { NullProvider } from './_common.js';

class HoldingProvider extends NullProvider {
  override create(_spec: CreateSpec, ctx?: OperationContext): Promise<CreateResult> {
    return new Promise((_resolve, reject) => {
      ctx?.signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
    });
  }
}

const config = loadConfig();
const service = await startWorkerService({ config, provider: new HoldingProvider(), logger: createLogger({ level: 'warn', pretty: false }), schedule: false });
process.stdout.write(`worker ready ${service.id}\n`);
process.once('SIGTERM', () => {
  void service.close(0).then(() => process.exit(0));
});
