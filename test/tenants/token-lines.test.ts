// SPEC 34: the lines of http.apiTokensFile. A token alone is the default
// tenant with the admin scope (every file from before tenants); words after
// it give a tenant, a scope, the tenant's quotas and webhook URL. Every
// refusal names the file, the line and the key, and never the token.
import { expect } from 'chai';
import { configuredTenants, parseTokenLines, TokenLinesError } from '../../src/tenants/token-lines.js';
import { DEFAULT_TENANT } from '../../src/tenants/types.js';

// Tokens of at least 128 bits (16 random bytes in hex).
const T1 = 'tok-9f86d081884c7d659a2feaa0c55ad015';
const T2 = 'tok-2c26b46b68ffc68ff99b453c1d304134';
const T3 = 'tok-fcde2b2edba56bf408601fb721fe9b5c';

const PATH = '/etc/pvep/api-tokens';

/** The refusal of `text`, checked to name the file and to quote no token. */
function refusal(text: string): string {
  let message = '';
  try {
    parseTokenLines(text, PATH);
  } catch (err) {
    expect(err).to.be.instanceOf(TokenLinesError);
    message = (err as Error).message;
  }
  expect(message, 'no refusal').to.not.equal('');
  expect(message).to.contain(`http.apiTokensFile ${PATH}`);
  for (const token of [T1, T2, T3]) expect(message).to.not.contain(token);
  return message;
}

describe('tokens file lines (SPEC 34)', () => {
  describe('a file from before tenants', () => {
    it('gives each plain token the default tenant, admin, no quotas, skipping comments and blank lines', () => {
      const tokens = parseTokenLines(`# ops team\n${T1}\n\n   \n  ${T2}  \n# old\n${T3}\r\n`, PATH);
      expect(tokens).to.deep.equal([
        { token: T1, tenant: DEFAULT_TENANT },
        { token: T2, tenant: DEFAULT_TENANT },
        { token: T3, tenant: DEFAULT_TENANT },
      ]);
      expect(configuredTenants(tokens)).to.deep.equal([DEFAULT_TENANT]);
    });

    it('takes a comment after a token (a word starting with #), with or without words before it', () => {
      const [plain, acme] = parseTokenLines(`${T1}  # the CI's token\n${T2} tenant=acme vms=2 # acme's backend\n`, PATH);
      expect(plain).to.deep.equal({ token: T1, tenant: DEFAULT_TENANT });
      expect(acme).to.deep.equal({ token: T2, tenant: { name: 'acme', scope: 'write', quotas: { vms: 2 } } });
    });

    it('still refuses a weak token by line, without quoting it, and a file with no token', () => {
      const weak = refusal(`${T1}\nweaktoken\n`);
      expect(weak).to.match(/line 2: the token holds at most about \d+ bits/);
      expect(weak).to.not.contain('weaktoken');
      expect(refusal('# only a comment\n\n')).to.contain('holds no token');
    });
  });

  describe('words after the token', () => {
    it('tenant= gives that tenant with the write scope; scope=admin without tenant= is the default tenant', () => {
      const [acme, admin] = parseTokenLines(`${T1} tenant=acme\n${T2} scope=admin\n`, PATH);
      expect(acme).to.deep.equal({ token: T1, tenant: { name: 'acme', scope: 'write', quotas: {} } });
      expect(admin).to.deep.equal({ token: T2, tenant: DEFAULT_TENANT });
    });

    it("refuses the default tenant (no tenant=, or tenant=default) another scope than admin, quotas or a webhookUrl: it is the operator's", () => {
      expect(refusal(`${T1}\n${T2} scope=read\n`)).to.match(/line 2 gives the default tenant the read scope: it is the operator's .*tenant=<name>/);
      expect(refusal(`${T1} tenant=default scope=write\n`)).to.contain('line 1 gives the default tenant the write scope');
      expect(refusal(`${T1} vms=3\n`)).to.contain('line 1 gives the default tenant quotas or a webhookUrl');
      expect(refusal(`${T1} webhookUrl=https://ops.example/hook\n`)).to.contain('line 1 gives the default tenant quotas or a webhookUrl');
    });

    it('reads every quota and the webhook URL, separated by spaces or tabs', () => {
      const [line] = parseTokenLines(`${T1}\ttenant=acme  scope=admin vms=3\tcores=8 memoryMiB=16384 diskGiB=200 createsPerMinute=10 webhookUrl=https://acme.example/hooks\n`, PATH);
      expect(line?.tenant).to.deep.equal({
        name: 'acme',
        scope: 'admin',
        quotas: { vms: 3, cores: 8, memoryMiB: 16384, diskGiB: 200, createsPerMinute: 10 },
        webhookUrl: 'https://acme.example/hooks',
      });
    });

    it('refuses an unknown key by line and name, listing the keys', () => {
      expect(refusal(`${T1}\n${T2} tenant=acme colour=blue\n`)).to.match(/line 2 has word 3, which is no known key=value; the keys are tenant, scope, vms, .*webhookUrl$/);
    });

    it('refuses a word that is no key=value, or a key that could be a secret, without quoting it', () => {
      const bare = refusal(`${T1} acme\n`);
      expect(bare).to.contain('line 1 has word 2, which is no known key=value');
      expect(bare).to.not.contain('acme');
      // Two tokens pasted on one line, the second with base64 padding (a 16-byte token: 24 characters, the last two `=`).
      const pasted = refusal(`${T1} QkFCREVGR0hJSktMTU5PUA==\n`);
      expect(pasted).to.contain('line 1 has word 2, which is no known key=value');
      expect(pasted).to.not.contain('QkFCREVG');
    });

    it('refuses a repeated key', () => {
      expect(refusal(`${T1} tenant=acme vms=2 vms=3\n`)).to.contain('line 1 gives vms twice');
    });

    for (const [word, why] of [
      ['vms=0', 'vms must be a positive integer'],
      ['cores=-1', 'cores must be a positive integer'],
      ['memoryMiB=1.5', 'memoryMiB must be a positive integer'],
      ['diskGiB=', 'diskGiB must be a positive integer'],
      ['createsPerMinute=ten', 'createsPerMinute must be a positive integer'],
      ['tenant=Acme', 'tenant must be 1 to 32 of a-z, 0-9 and -, starting with a letter'],
      ['tenant=9lives', 'tenant must be 1 to 32'],
      [`tenant=${'a'.repeat(33)}`, 'tenant must be 1 to 32'],
      ['scope=owner', 'scope must be one of read, write, admin'],
      ['webhookUrl=ftp://acme.example/x', 'webhookUrl must be an https:// or http:// URL'],
      ['webhookUrl=acme.example', 'webhookUrl must be an https:// or http:// URL'],
      ['webhookUrl=https://user:pw@acme.example/x', 'webhookUrl must carry no user or password'],
    ] as const) {
      it(`refuses ${word.slice(0, 24)} by line and key: "${why}"`, () => {
        expect(refusal(`${T1}\n# c\n${T2} ${word}\n`)).to.contain(`line 3: ${why}`);
      });
    }

    it('refuses a line that starts with a key: the token comes first', () => {
      expect(refusal(`tenant=acme ${T1}\n`)).to.contain('line 1 starts with tenant=: the token comes first');
    });
  });

  describe("a tenant's several lines", () => {
    it('lines that give no quotas take the tenant\'s; each token keeps its own scope', () => {
      const tokens = parseTokenLines(`${T1} tenant=acme scope=read\n${T2} tenant=acme vms=3 webhookUrl=https://acme.example/h\n${T3} tenant=acme scope=write\n`, PATH);
      const acme = { name: 'acme', quotas: { vms: 3 }, webhookUrl: 'https://acme.example/h' };
      expect(tokens.map((t) => t.tenant)).to.deep.equal([
        { ...acme, scope: 'read' },
        { ...acme, scope: 'write' },
        { ...acme, scope: 'write' },
      ]);
      expect(configuredTenants(tokens)).to.deep.equal([{ ...acme, scope: 'read' }]);
    });

    it('lines that give the same quotas and URL in another order agree', () => {
      const tokens = parseTokenLines(`${T1} tenant=acme vms=3 cores=4\n${T2} cores=4 tenant=acme vms=3 scope=read\n`, PATH);
      expect(tokens.map((t) => t.tenant.quotas)).to.deep.equal([{ vms: 3, cores: 4 }, { vms: 3, cores: 4 }]);
    });

    it('refuses lines of one tenant that give other quotas or another webhook URL, naming both lines', () => {
      expect(refusal(`${T1} tenant=acme vms=3\n${T2} tenant=beta vms=5\n${T3} tenant=acme vms=4\n`)).to.contain('line 3 gives tenant acme other quotas or webhookUrl than line 1');
      expect(refusal(`${T1} tenant=acme vms=3\n${T2} tenant=acme vms=3 cores=2\n`)).to.contain('line 2 gives tenant acme other quotas or webhookUrl than line 1');
      expect(refusal(`${T1} tenant=acme webhookUrl=https://a.example/1\n${T2} tenant=acme webhookUrl=https://a.example/2\n`)).to.contain('than line 1');
    });

    it('takes the same token on two lines of the same tenant and scope, and refuses it with another', () => {
      expect(parseTokenLines(`${T1}\n${T1}\n`, PATH)).to.have.length(2);
      expect(refusal(`${T1} tenant=acme\n${T2}\n${T1} tenant=beta\n`)).to.contain('line 3 repeats the token of line 1 with another tenant or scope');
      expect(refusal(`${T1} tenant=acme\n${T1} tenant=acme scope=read\n`)).to.contain('line 2 repeats the token of line 1');
    });

    it('lists each tenant once, in file order', () => {
      const tokens = parseTokenLines(`${T1} tenant=beta\n${T2}\n${T3} tenant=acme\n`, PATH);
      expect(configuredTenants(tokens).map((t) => t.name)).to.deep.equal(['beta', 'default', 'acme']);
    });
  });
});
