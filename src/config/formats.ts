// Custom convict formats. Each throws a message that says what is wrong
// and the allowed form; convict prefixes the key and the value. The
// formats live by kind (url-formats.ts, number-formats.ts,
// list-formats.ts); the two name formats are here.
import convict, { type Format } from 'convict';
import { booleanWordFormat } from './boolean-words.js';
import { LIST_FORMATS } from './list-formats.js';
import { NETWORK_LIST_FORMAT } from './network-format.js';
import { NUMBER_FORMATS } from './number-formats.js';
import { POOL_LIST_FORMAT } from './pool-format.js';
import { CLUSTER_LIST_FORMAT } from './cluster-format.js';
import { URL_FORMATS } from './url-formats.js';

const TAG_RE = /^[a-z0-9_][a-z0-9_+.-]*$/;

const NAME_FORMATS: readonly Format[] = [
  {
    name: 'proxmox-tag',
    validate(value: unknown) {
      if (typeof value !== 'string' || !TAG_RE.test(value)) {
        throw new Error('must be a Proxmox tag: lowercase letters, digits, "_", "-", "+", ".", not starting with "-", "+" or "."');
      }
    },
  },
  {
    name: 'key-prefix',
    validate(value: unknown) {
      if (typeof value !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(value)) {
        throw new Error('must be 1 to 64 of letters, digits, "_", "-", "." (no ":" or spaces)');
      }
    },
  },
];

/** Every format the schema names (convict keeps them by name, so their order is free). */
const CONFIG_FORMATS: readonly Format[] = [booleanWordFormat, ...URL_FORMATS, ...NAME_FORMATS, ...NUMBER_FORMATS, ...LIST_FORMATS, NETWORK_LIST_FORMAT, POOL_LIST_FORMAT, CLUSTER_LIST_FORMAT];

export function registerFormats(): void {
  for (const format of CONFIG_FORMATS) convict.addFormat(format);
}
