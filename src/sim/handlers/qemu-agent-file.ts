// POST /nodes/{node}/qemu/{vmid}/agent/file-write (SPEC 30): qemu-server
// API2/Qemu/Agent.pm `file-write` (read at qemu-server e6352be):
// protected, so it runs in pvedaemon (SPEC 28); `content` at most 61440
// characters (the schema's maxLength, checked before the handler); with
// `encode` (default 1) the API base64-encodes the content for QEMU,
// without it the content must be base64 already. Then guest-file-open
// (mode `wb`: created or truncated), guest-file-write, guest-file-close,
// each through agent_cmd, so each after assert_agent_available: an agent
// that is not up answers as network-get-interfaces does, 3 s held. The
// answer is null. The guest keeps the file (SimVm.guestFiles) until the
// VM is destroyed; the simulator has no guest filesystem, so every
// directory exists (src/sim/README.md).
import { dieError } from '../answer-error.js';
import { flag, param, type Handler } from './context.js';
import { agentUp } from './qemu-agent.js';

/** QEMU's qbase64_decode takes only well-formed base64 (util/base64.c): no whitespace, padded. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const agentFileWrite: Handler = (ctx) => {
  const { vm } = agentUp(ctx);
  const file = param(ctx, 'file');
  const content = param(ctx, 'content');
  const encode = ctx.params.encode === undefined || flag(ctx, 'encode');
  const files = (vm.guestFiles ??= {});
  // guest-file-open `wb` truncates before the write is tried.
  files[file] = '';
  if (!encode && !BASE64.test(content)) {
    // QMPClient.pm: an agent's error desc dies as `<peer> <type> command '<cmd>' failed - <desc>`.
    throw dieError(`VM ${vm.vmid} qga command 'guest-file-write' failed - Base64 data is not valid`);
  }
  files[file] = encode ? content : Buffer.from(content, 'base64').toString('utf8');
  return null;
};
