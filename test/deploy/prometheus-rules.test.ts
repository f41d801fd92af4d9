// SPEC 27: deploy/prometheus/alerts.yml is accepted by `promtool check
// rules`, and its unit tests (alerts.test.yml) pass under `promtool test
// rules`, with a case of each alert firing and one of it staying quiet.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ALERTS_FILE, DEPLOY } from '../support/deploy-queries.js';
import { promtool } from '../support/promtool.js';

const TESTS_FILE = join(DEPLOY, 'prometheus', 'alerts.test.yml');

interface RulesFile {
  groups: { rules: { alert?: string }[] }[];
}
interface RuleTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

function alertNames(): string[] {
  const rules = load(readFileSync(ALERTS_FILE, 'utf8')) as RulesFile;
  return rules.groups.flatMap((group) => group.rules.flatMap((rule) => (rule.alert === undefined ? [] : [rule.alert])));
}

describe('Prometheus alert rules in deploy/ (SPEC 27)', () => {
  it('promtool check rules accepts alerts.yml', async () => {
    const run = await promtool(['check', 'rules', ALERTS_FILE]);
    expect(run.code, `${run.stdout}${run.stderr}`).to.equal(0);
    expect(run.stdout).to.contain(`SUCCESS: ${alertNames().length} rules found`);
  });

  it('has the alerts the issues ask for: jobs failing, queue backing up, node unhealthy, webhooks failing, a warm pool empty (SPEC 30)', () => {
    expect(alertNames()).to.include.members(['PveProvisionerJobsFailing', 'PveProvisionerQueueBackingUp', 'PveProvisionerNodeUnhealthy', 'PveProvisionerWebhooksFailing', 'PveProvisionerPoolEmpty']);
  });

  it('has ProxmoxClusterAway on pvep_cluster_up == 0 for 2 minutes, per cluster (SPEC 32)', () => {
    const rules = (load(readFileSync(ALERTS_FILE, 'utf8')) as { groups: { rules: { alert?: string; expr?: string; for?: string }[] }[] }).groups.flatMap((group) => group.rules);
    const rule = rules.find((r) => r.alert === 'ProxmoxClusterAway');
    expect(rule?.expr?.trim()).to.equal('max by (cluster) (pvep_cluster_up) == 0');
    expect(rule?.for).to.equal('2m');
  });

  it('promtool test rules passes alerts.test.yml', async () => {
    const run = await promtool(['test', 'rules', TESTS_FILE]);
    expect(run.code, `${run.stdout}${run.stderr}`).to.equal(0);
    expect(run.stdout).to.contain('SUCCESS');
  });

  it('alerts.test.yml has, for every alert, a case where it fires and one where it does not', () => {
    const cases = (load(readFileSync(TESTS_FILE, 'utf8')) as RuleTests).tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const alert of alertNames()) {
      const own = cases.filter((c) => c.alertname === alert);
      expect(own.some((c) => (c.exp_alerts ?? []).length > 0), `${alert} firing`).to.equal(true);
      expect(own.some((c) => (c.exp_alerts ?? []).length === 0), `${alert} quiet`).to.equal(true);
    }
  });
});
