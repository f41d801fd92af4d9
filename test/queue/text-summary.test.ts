// SPEC 24: answers summarise the create's free texts, userData and
// networkConfig, and nothing else: a name, uid or bridge (bounded in
// bytes too, but by a pattern) is shown as sent.
import { expect } from 'chai';
import { withTextsSummarized } from '../../src/queue/text-summary.js';

describe('the texts answers summarise (SPEC 24)', () => {
  it('are userData and networkConfig alone; name, uid and bridge stay as sent', () => {
    const data = { name: 'vm-1', uid: 'u-1', bridge: 'vmbr0', userData: '#cloud-config\n', networkConfig: 'version: 2\n', cores: 2 };
    const shown = withTextsSummarized(data, 'k'.repeat(32)) as Record<string, unknown>;
    expect(Object.keys(shown).filter((field) => shown[field] !== data[field as keyof typeof data])).to.deep.equal(['userData', 'networkConfig']);
    expect(shown.userData).to.include({ bytes: 14 });
  });
});
