// The OpenAPI document's part on warm pools (SPEC 30): where a create's VM
// comes from, on its answer. The create's `pool` field and the job's
// `claim` are documented from the field table (create.schema.ts).
import type { CreateSource } from '../pools/types.js';

const SOURCES: readonly CreateSource[] = ['pool', 'cold'];

/** A create's answer: its VM an idle member of a warm pool, or a clone of its own. */
export const sourceAnswerProperties: Record<string, Record<string, unknown>> = {
  source: {
    type: 'string',
    enum: SOURCES,
    description:
      "A create's (SPEC 30): pool when it claimed a warm pool's idle VM at the accept (its job renames that VM and writes the sshKeys; a repeat answers pool when its create did), cold when its VM is cloned (no pool of its shape, the pool empty, userData or networkConfig given, or pool false).",
  },
};
