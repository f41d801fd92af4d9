// POST /nodes/{node}/qemu/{vmid}/agent/file-write (SPEC 30): qemu-server
// API2/Qemu/Agent.pm `file-write` (read at qemu-server e6352be):
// protected, so it runs in pvedaemon (SPEC 28); `content` at most 61440
// characters (the schema's maxLength, checked before the handler); with
// `encode` (default 1) the API base64-encodes the content for QEMU
// (MIME::Base64 encode_base64, before anything reaches the agent: it
// dies on a character past U+00FF, and writes U+0080-U+00FF as their
// Latin-1 byte, since pveproxy decoded the form as UTF-8), without it the
// content must be base64 already. Then guest-file-open
// (mode `wb`: created or truncated), guest-file-write, guest-file-close,
// each through agent_cmd, so each after assert_agent_available: an agent
// that is not up answers as network-get-interfaces does, 3 s held. The
// answer is null. The guest keeps the file (SimVm.guestFiles) until the
// VM is destroyed; the simulator has no guest filesystem, so every
// directory exists (src/sim/README.md).
import { dieError } from '../answer-error.js';
import { flag, param, type Handler } from './context.js';
import { agentUp } from './qemu-agent.js';

/**
 * MIME::Base64's croak on a wide character, as Perl's die adds where it
 * was: Agent.pm's encode_base64 line at qemu-server e6352be (the installed
 * path; the line is the source's, not captured on a host).
 */
export const WIDE_CHARACTER = 'Wide character in subroutine entry at /usr/share/perl5/PVE/API2/Qemu/Agent.pm line 624.';

/** QEMU's qbase64_decode takes only well-formed base64 (util/base64.c): no whitespace, padded. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const agentFileWrite: Handler = (ctx) => {
  const { vm } = agentUp(ctx);
  const file = param(ctx, 'file');
  const content = param(ctx, 'content');
  const encode = ctx.params.encode === undefined || flag(ctx, 'encode');
  // encode_base64 runs before guest-file-open: a wide character leaves the file as it was.
  if (encode && [...content].some((char) => (char.codePointAt(0) ?? 0) > 0xff)) throw dieError(WIDE_CHARACTER);
  const files = (vm.guestFiles ??= {});
  // guest-file-open `wb` truncates before the write is tried.
  files[file] = '';
  if (!encode && !BASE64.test(content)) {
    // QMPClient.pm: an agent's error desc dies as `<peer> <type> command '<cmd>' failed - <desc>`.
    throw dieError(`VM ${vm.vmid} qga command 'guest-file-write' failed - Base64 data is not valid`);
  }
  // The guest's bytes, kept as the UTF-8 text they read as: encode=1 wrote one Latin-1 byte per character.
  files[file] = (encode ? Buffer.from(content, 'latin1') : Buffer.from(content, 'base64')).toString('utf8');
  return null;
};
