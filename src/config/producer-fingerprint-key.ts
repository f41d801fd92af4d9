// The fingerprint key as the producer library gets it: from the file the
// caller names (the service's http.fingerprintKeyFile), read on the first
// view that needs it and kept; a failed read is tried again by the next.
// The key is a secret: it is never published in Redis, so a library given
// no file summarizes texts by their size alone.
import { readSecretFile } from '../secrets/read.js';
import { ProducerConfigError } from './producer.js';

export type FingerprintKeySource = () => Promise<string | undefined>;

export function fingerprintKeySource(file: string | undefined): FingerprintKeySource {
  if (file === undefined) return () => Promise.resolve(undefined);
  let key: Promise<string> | undefined;
  return () =>
    (key ??= readSecretFile(file).catch((err: unknown) => {
      key = undefined;
      throw new ProducerConfigError(`fingerprintKeyFile: ${err instanceof Error ? err.message : String(err)}`);
    }));
}
