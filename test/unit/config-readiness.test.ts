// SPEC 29 (issue 31), SPEC 7: proxmox.images[].readiness and
// readinessPort: `agent` and 22 unless given, the implicit image `agent`;
// bad values stop the load naming the image and the key; a phone-home
// image without http.publicUrl (what its guests call) stops it too.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { imagesOf } from '../../src/config/images.js';
import { loadError } from '../support/config-error.js';

const TEMPLATES = '"templates":{"pve1":9001}';

function images(...entries: string[]): Record<string, string> {
  return { PROXMOX_IMAGES: `[${entries.join(',')}]` };
}

describe('config proxmox.images[].readiness (SPEC 29, issue 31)', () => {
  it('resolves each image with its readiness and port; agent and 22 when not given, and for the implicit image', () => {
    const env = {
      ...images(
        `{"name":"plain",${TEMPLATES}}`,
        `{"name":"ssh",${TEMPLATES},"readiness":"tcp","readinessPort":2222}`,
        `{"name":"ssh22",${TEMPLATES},"readiness":"tcp"}`,
        `{"name":"quiet",${TEMPLATES},"readiness":"none"}`,
        `{"name":"calls",${TEMPLATES},"readiness":"phone-home"}`,
      ),
      HTTP_PUBLIC_URL: 'https://provisioner.example',
    };
    const resolved = imagesOf(loadConfig({ env }).proxmox).map((i) => [i.name, i.readiness, i.readinessPort]);
    expect(resolved).to.deep.equal([
      ['plain', 'agent', 22],
      ['ssh', 'tcp', 2222],
      ['ssh22', 'tcp', 22],
      ['quiet', 'none', 22],
      ['calls', 'phone-home', 22],
    ]);
    expect(imagesOf(loadConfig({ env: {} }).proxmox).map((i) => [i.name, i.readiness, i.readinessPort])).to.deep.equal([['default', 'agent', 22]]);
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    ['an unknown readiness', images(`{"name":"debian",${TEMPLATES},"readiness":"ping"}`), /proxmox\.images: entry 0 \(debian\): readiness must be one of "agent", "phone-home", "tcp", "none" \(default "agent"\), not "ping"/],
    ['a readiness that is not a string', images(`{"name":"debian",${TEMPLATES},"readiness":1}`), /entry 0 \(debian\): readiness must be one of .*, not 1/],
    ['a port of 0', images(`{"name":"debian",${TEMPLATES},"readiness":"tcp","readinessPort":0}`), /proxmox\.images: entry 0 \(debian\): readinessPort must be an integer from 1 to 65535/],
    ['a port above 65535', images(`{"name":"debian",${TEMPLATES},"readiness":"tcp","readinessPort":65536}`), /readinessPort must be an integer from 1 to 65535/],
    ['a port as text', images(`{"name":"debian",${TEMPLATES},"readiness":"tcp","readinessPort":"22"}`), /readinessPort must be an integer from 1 to 65535/],
    ['a port without readiness tcp', images(`{"name":"debian",${TEMPLATES},"readinessPort":22}`), /entry 0 \(debian\): readinessPort is the port readiness "tcp" connects to; this image's readiness is "agent"/],
    [
      'phone-home without http.publicUrl',
      images(`{"name":"debian",${TEMPLATES}}`, `{"name":"calls",${TEMPLATES},"readiness":"phone-home"}`),
      /proxmox\.images\[1\] \(calls\) has readiness "phone-home" but http\.publicUrl is empty: set http\.publicUrl .*<http\.publicUrl>\/v1\/ready\/<token>/,
    ],
  ];
  for (const [what, env, message] of refused) {
    it(`refuses ${what}, naming the image and the key`, () => {
      expect(loadError(env)).to.match(message);
    });
  }
});
