#!/usr/bin/env node
// The `pve-provisioner` command (SPEC 6). Each subcommand lives in
// src/cli/<name>.ts and exports `run(args): Promise<number>`; it is loaded
// only when asked for, so `seed` never pulls in BullMQ or fastify.
// Exit status: 0 success, 1 a failed job, 2 bad input (reason on stderr).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { CALLER_JOBS } from './job-table/schema.js';
import { shown } from './cli/terminal-text.js';

const COMMANDS: Record<string, string> = {
  worker: 'run the job workers',
  web: 'run the HTTP API, Bull Board and metrics',
  all: 'run web and worker in one process (and the simulator when proxmox.url is "sim"): all [--private-redis]',
  sim: 'run the Proxmox VE simulator alone: sim [--port N] [--vms N] [--tls-cert F --tls-key F]',
  seed: 'write a NoCloud seed ISO: seed --name NAME [--user-data F] [--network-config F] [--ssh-key F]... [--no-guest-agent] [--joliet] --out FILE',
  enqueue: `enqueue a job: enqueue ${CALLER_JOBS.join('|')} --name NAME [job fields] [--wait] [--json]`,
  reconcile: 'run a reconcile sweep: reconcile [--dry-run] [--wait] [--json]',
  health: 'print the last health result of every node (exit 1 when a node is not ok)',
  list: 'list the names the service manages: list [--state present|absent] [--node NODE] [--cluster CLUSTER] [--expiring-before TIME] [--json]',
  get: 'show one name, its last known state and job: get NAME [--json]',
  clusters: 'list the Proxmox clusters, their health, nodes fit, free memory and images: clusters [--json]',
  pools: 'list the warm pools, their shapes and VMs idle, claimed and creating: pools [--json]',
  tenants: "list what each tenant holds against its quotas, or print a tenant's webhook key: tenants [--json] | --webhook-key TENANT",
  lease: "renew a name's lease: lease NAME --ttl SECONDS | --expires-at TIME [--shorten] [--json]",
  verify: 'check the configured Proxmox VE, and optionally create and delete one VM per node: verify [--create] [--node NODE]... [--record DIR] [--json]',
};

export interface CommandModule {
  run(args: string[]): Promise<number>;
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, text]) => `  ${name.padEnd(10)} ${text}`);
  return `usage: pve-provisioner <command> [options]\n\ncommands:\n${lines.join('\n')}\n\n"pve-provisioner <command> --help" (or "help <command>") prints a command's usage.\n`;
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  // `help worker` is `worker --help`.
  const [command, ...args] = first === 'help' && rest[0] !== undefined ? [rest[0], '--help'] : [first, ...rest];
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage());
    return command === undefined ? 2 : 0;
  }
  if (!(command in COMMANDS)) {
    process.stderr.write(`pve-provisioner: unknown command "${command}"\n\n${usage()}`);
    return 2;
  }
  const here = dirname(fileURLToPath(import.meta.url));
  const file = ['.js', '.ts'].map((ext) => join(here, 'cli', `${command}${ext}`)).find((f) => existsSync(f));
  if (file === undefined) {
    process.stderr.write(`pve-provisioner: command "${command}" is not available in this build\n`);
    return 2;
  }
  const module = (await import(`./cli/${command}.js`)) as CommandModule;
  return module.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`pve-provisioner: ${shown(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = 1;
  },
);
