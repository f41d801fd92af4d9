// The reader tests must fail, not skip, when a tool is missing, and say
// which Debian package provides it (CI installs them all).
import { expect } from 'chai';
import { runTool } from './tools.js';

describe('ISO reader tools: a missing one fails naming its Debian package', function () {
  let savedPath: string | undefined;
  beforeEach(function () {
    savedPath = process.env.PATH;
    process.env.PATH = '/nonexistent-for-this-test';
  });
  afterEach(function () {
    process.env.PATH = savedPath;
  });

  for (const [tool, pkg] of [['bsdtar', 'libarchive-tools'], ['7z', 'p7zip-full'], ['isoinfo', 'genisoimage'], ['cloud-localds', 'cloud-image-utils']]) {
    it(`${tool}: ${pkg}`, function () {
      expect(() => runTool(tool ?? '', ['--version'])).to.throw(`${tool} is not installed: install the Debian package ${pkg}`);
    });
  }
});
