// The convict schema of SPEC 7. Every key has a doc, a default and an
// environment variable (its path in upper snake case, filled in by
// withEnvNames below so no key can be forgotten).
import type { Schema } from 'convict';
import type { Config } from './types.js';

export const schema: Schema<Config> = {
  proxmox: {
    clusters: {
      doc: 'Several Proxmox VE clusters behind one service (SPEC 32): a JSON list of {name, url, tokenFile?, caFile?, nodes?, images?, defaultImage?, networks?, maxRequestsPerSecond?, daemonSlotsPerNode?}, in the order placement prefers them. name: 1 to 20 of a-z, 0-9, "-", starting with a letter; url as proxmox.url ("sim": a simulator this process starts); every other key as its proxmox.* namesake, taken from it when absent. Each cluster has its own VMIDs, request budget, daemon slots, learned times, health and sweep; a name lives in exactly one (a create names it with `cluster`, else placement picks a healthy one that serves the image, by free memory, then this order), and its VMs carry it in their mark and a tag `<tag>-cluster-<name>`. Empty (the default): one cluster made of proxmox.url, proxmox.nodes, ..., as before.',
      format: 'cluster-list',
      default: [],
    },
    url: {
      doc: 'Proxmox VE API base, e.g. https://pve.example:8006. "sim" uses the built-in simulator (SPEC 8) on sim.host:sim.port; plain http:// is allowed only for loopback addresses.',
      format: 'proxmox-url',
      default: 'sim',
    },
    tokenFile: {
      doc: 'File holding the API token "user@realm!id=secret"; checked at most once a second and read again when its mtime or size changes, so it can be rotated without a restart. With url "sim" the file is created with a random token when missing.',
      format: String,
      default: 'var/proxmox-token',
    },
    caFile: {
      doc: 'PEM file with the CA that signed the Proxmox certificate; empty uses the system CAs.',
      format: String,
      default: '',
    },
    tag: {
      doc: 'Tag that marks the VMs this service manages (Proxmox tag rules, F9: lowercase letters, digits, "_", "-", "+", ".", not starting with "-", "+" or ".").',
      format: 'proxmox-tag',
      default: 'pve_provisioner',
    },
    vmidRange: {
      min: {
        doc: 'Lowest VMID this service allocates (the uid hashes into [min, max]).',
        format: 'vmid',
        default: 100000,
      },
      max: {
        doc: 'Highest VMID this service allocates.',
        format: 'vmid',
        default: 999999,
      },
    },
    installGuestAgent: {
      doc: 'Seed vendor-data installs and starts qemu-guest-agent at first boot (needs a package mirror from the guest).',
      format: 'boolean-word',
      default: true,
    },
    seedJoliet: {
      doc: 'Add Joliet names to the seed ISO. Off as in Proxmox\'s own cloud-init drive: Joliet breaks some guests (Talos).',
      format: 'boolean-word',
      default: false,
    },
    nodes: {
      doc: 'Nodes VMs may be placed on: a JSON list of {name, template?, isoStorage, storage?, bridge?, vlanTag? (1-4094), apiUrl?}. apiUrl (optional, https://, or http:// on loopback; no user or password in it) is that node\'s own pveproxy: its calls, seed uploads first, go there instead of proxmox.url, with the same token and caFile (SPEC 28); health checks it answers and serves the same cluster. template (required unless proxmox.images is set) is the VMID of a template on that node (a VMID is unique in the cluster, so each node has its own), or {"vmid": N, "node": "NODE"} for a template on another node whose disks are on shared storage, cloned here with target.',
      format: 'node-list',
      default: [
        { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
        { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds' },
      ],
    },
    images: {
      doc: 'Images a create may name (SPEC 27): a JSON list of {name, description?, templates, readiness?, readinessPort?}, templates mapping each node that serves the image to its template there, in the form of nodes[].template (a VMID on that node, or {"vmid": N, "node": "NODE"} for a template on another node on shared storage, cloned with target). A node not in templates does not serve the image. readiness (SPEC 29) is how a create of the image learns its VM is ready: "agent" (the default: the guest agent reports an address), "phone-home" (cloud-init\'s phone_home posts to <http.publicUrl>/v1/ready/<token>), "tcp" (the worker connects to the leased address on readinessPort, default 22) or "none" (the VM runs). user (optional, a user name such as "ubuntu" or "root") is the image\'s default cloud-init user, whose authorized_keys a warm pool\'s claim writes (SPEC 30); a pool\'s image needs one. Empty (the default): one image "default" made of each node\'s nodes[].template, readiness "agent".',
      format: 'image-list',
      default: [],
    },
    defaultImage: {
      doc: 'The image a create that names none gets; empty: the first of proxmox.images, or "default" when proxmox.images is empty.',
      format: String,
      default: '',
    },
    networks: {
      doc: 'Address pools (SPEC 29): a JSON list of {name, bridge, vlanTag?, cidr, gateway?, dns?, first?, last?, exclude?, reuseCooldownSeconds?}, one pool per bridge and VLAN tag. A create whose VM lands on that bridge and VLAN tag (its own bridge and vlanTag, else its node\'s) gets a static IPv4 address from the pool at the door; a network with no pool keeps DHCP. cidr /8 to /30; first and last (the subnet\'s first and last host when absent) bound at most 65536 addresses; dns and exclude default to none; a freed address waits reuseCooldownSeconds (default 600) before it is handed out again.',
      format: 'network-list',
      default: [],
    },
    defaults: {
      cores: { doc: 'Cores of a VM when the job names none.', format: 'positive-int', default: 2 },
      memoryMiB: { doc: 'Memory (MiB) of a VM when the job names none.', format: 'positive-int', default: 2048 },
      diskGiB: { doc: 'Boot disk size (GiB) when the job names none; never smaller than the template\'s disk.', format: 'positive-int', default: 10 },
    },
    limits: {
      maxCores: { doc: 'Largest cores a job may ask for.', format: 'positive-int', default: 32 },
      maxMemoryMiB: { doc: 'Largest memoryMiB a job may ask for.', format: 'positive-int', default: 131072 },
      maxDiskGiB: { doc: 'Largest diskGiB a job may ask for.', format: 'positive-int', default: 2048 },
    },
    maxRequestsPerSecond: {
      doc: 'Most Proxmox API requests all worker processes on this redis.prefix send together in any one second (SPEC 26) through one address, kept in Redis: proxmox.url has this budget, and each node with its own proxmox.nodes[i].apiUrl has one more for the calls that go there (SPEC 28); 0 sends without limit. 20 leaves most of one pveproxy (3 workers by default) to the GUI and other clients.',
      format: 'nat',
      default: 20,
    },
    requestBurst: {
      doc: 'Requests that may go back to back above the even pace of maxRequestsPerSecond (0: one every 1/maxRequestsPerSecond s). The one-second ceiling holds whatever the burst.',
      format: 'nat',
      default: 0,
    },
    daemonSlotsPerNode: {
      doc: 'Most Proxmox calls that run in a pvedaemon worker (the API methods Proxmox registers protected: clone, start, config writes, agent, task status, storage, upload, ...) all worker processes on this redis.prefix keep in flight per node at once (SPEC 28), kept in Redis; a call given up before its answer keeps its slot for its worst case in pvedaemon (2 to 30 s by call, from the Proxmox source; docs/operations.md). 2 leaves one of pvedaemon\'s 3 workers per node to people and other tools; 0 turns the limit off.',
      format: 'whole-number',
      default: 2,
    },
    daemonSlotWorstCaseScale: {
      doc: 'Multiplies those worst cases (above 0, at most 1). 1 against a real Proxmox VE; against the simulator, its sim.timeScale, as it runs Proxmox\'s times that much faster.',
      format: 'unit-fraction',
      default: 1,
    },
  },
  pools: {
    doc: 'Warm pools (SPEC 30): a JSON list of {name, image?, cores?, memoryMiB?, diskGiB?, bridge?, vlanTag?, node?, minIdle, maxIdle?, maxAgeMinutes?}. Workers keep minIdle VMs of each shape created, booted and ready (named pvep-pool-<name>-<n>); a create with no userData and no networkConfig whose image, cores, memoryMiB, diskGiB, bridge and vlanTag equal a pool\'s (after the defaults), and whose node is the pool\'s or absent (a pool with no node: absent), takes an idle one at the accept instead of a clone of its own, unless it asks pool false. name: 1 to 20 of a-z, 0-9, "-", starting with a letter; the shape defaults and is bounded as a create\'s (proxmox.defaultImage, proxmox.defaults, proxmox.limits), its image must have a user (proxmox.images[].user), its node must serve it; at most one pool per shape. minIdle 0 to 100; maxIdle (default minIdle, at most 100) bounds the members, and under demand the refill keeps idle and creating ones up to minIdle plus the creates of the last lead time, at most maxIdle; an idle one older than maxAgeMinutes (default 1440; 0: never) is replaced.',
    format: 'pool-list',
    default: [],
  },
  budgets: {
    pollMs: { doc: 'Longest gap between two polls of a task or state (ms); a kind of wait whose learned duration is steady takes its first poll at that duration plus a margin, even when that is longer (SPEC 26).', format: 'positive-int', default: 1000 },
    cloneSeconds: { doc: 'Longest wait for a clone task or a clone lock.', format: 'positive-int', default: 600 },
    taskSeconds: { doc: 'Longest wait for any other task (upload, resize, start, stop, destroy, volume delete).', format: 'positive-int', default: 300 },
    runningSeconds: { doc: 'Longest wait after start for status and qmpstatus both "running".', format: 'positive-int', default: 120 },
    addressSeconds: { doc: 'Longest wait for the guest agent to report an address (waitForAddress).', format: 'positive-int', default: 300 },
    firstAddressSeconds: {
      doc: "After a VM's start, when its first call to the guest agent comes while nothing is learned of its image's boot time (s; fractions allowed; 0: at once; at most half of budgets.addressSeconds is used). Once learned, the first call comes at the learned time; an image whose agent already answered at that first call is asked at half that time on its next create, and so on until a call comes early (SPEC 26).",
      format: 'non-negative-number',
      default: 30,
    },
    lockTtlMs: { doc: 'TTL of the per-name lock; the holder renews it every third of this.', format: 'positive-int', default: 30000 },
    connectMs: { doc: 'Longest wait to connect to the Proxmox API, for each of DNS, TCP and TLS (ms); then the call fails as Transient.', format: 'positive-int', default: 10000 },
    responseMs: { doc: 'Longest wait from a Proxmox API request sent to its answer\'s headers (ms); then the call fails as Transient.', format: 'positive-int', default: 60000 },
  },
  redis: {
    url: { doc: 'Redis URL (redis:// or rediss://).', format: 'redis-url', default: 'redis://127.0.0.1:6379' },
    prefix: { doc: 'Prefix of every Redis key this service writes (queues, registry, locks). On a Redis Cluster every key goes under the hash tag {<prefix>}, so all of them share one slot (SPEC 25).', format: 'key-prefix', default: 'pvep' },
    passwordFile: { doc: 'File holding the Redis password (of every node, on a Cluster or behind Sentinel); empty uses the password in redis.url, if any.', format: String, default: '' },
    clusterNodes: {
      doc: 'Redis Cluster nodes to start from, a list of host:port (REDIS_CLUSTER_NODES comma-separated); empty: no cluster. redis.url still gives the scheme (rediss:// for TLS) and the user and password; its host is not used (SPEC 25).',
      format: 'host-port-list',
      default: [],
    },
    sentinel: {
      nodes: {
        doc: 'Sentinels to ask for the master, a list of host:port (REDIS_SENTINEL_NODES comma-separated); empty: no Sentinel. redis.url still gives the scheme, the user, the password and the database (SPEC 25).',
        format: 'host-port-list',
        default: [],
      },
      name: { doc: 'The master\'s name as the sentinels know it (sentinel monitor <name> ...); required with redis.sentinel.nodes.', format: String, default: '' },
    },
    replicaAcks: {
      doc: 'Replicas that must confirm an accepted create, delete or job (WAIT) before it is answered; fewer within redis.replicaAckTimeoutMs and the caller gets a 503 (the producer library a RedisUnavailableError) and may repeat the request. 0 waits for none: a write the master answered can be lost in a failover (SPEC 25, docs/operations.md).',
      format: 'whole-number',
      default: 0,
    },
    replicaAckTimeoutMs: { doc: 'Longest wait for redis.replicaAcks replicas to confirm an accept (ms).', format: 'positive-int', default: 1000 },
  },
  jobs: {
    attempts: { doc: 'Attempts of a job whose errors are Transient (SPEC 4).', format: 'positive-int', default: 10 },
    backoffMs: { doc: 'First retry delay (ms); doubles each attempt, with jitter.', format: 'positive-int', default: 2000 },
    concurrency: { doc: 'Jobs one worker process runs at once.', format: 'positive-int', default: 8 },
    shutdownGraceSeconds: { doc: 'On SIGTERM, how long running jobs may take to finish before the worker closes.', format: 'positive-int', default: 60 },
    keepCompletedCount: { doc: 'Completed jobs kept in Redis (newest first).', format: 'nat', default: 1000 },
    keepCompletedSeconds: { doc: 'Completed jobs older than this are removed.', format: 'nat', default: 86400 },
    keepFailedCount: { doc: 'Failed jobs kept in Redis (newest first).', format: 'nat', default: 5000 },
    keepFailedSeconds: { doc: 'Failed jobs older than this are removed.', format: 'nat', default: 604800 },
    acceptWhenUnhealthy: {
      doc: 'What POST /v1/vms does when the last health check found no node fit to take a VM: true accepts the create (202 with a warning naming why; the create waits and retries until a node passes or its attempts run out); false refuses it with 503, Retry-After (health.everySeconds) and the reason, recording and enqueuing nothing. Creates through the producer library are not checked.',
      format: 'boolean-word',
      default: true,
    },
  },
  worker: {
    metricsPort: { doc: 'Port of the worker process\'s own GET /metrics when it runs without the web process (its counters live in it); 0 serves none. Under "all" the web /metrics has them.', format: 'port', default: 0 },
  },
  registry: {
    tombstoneSeconds: { doc: 'How long a deleted name\'s tombstone (absent, with its generation) is kept.', format: 'positive-int', default: 604800 },
  },
  leases: {
    defaultSeconds: {
      doc: 'Lease of a create that gives no ttlSeconds (SPEC 31): its VM ends this many seconds after the create is accepted unless renewed (PUT /v1/vms/{name}/lease); 0 (the default): no lease unless the create asks for one.',
      format: 'nat',
      default: 0,
    },
    maxSeconds: {
      doc: 'Longest lease a create\'s ttlSeconds or a renewal may ask for, counted from now (SPEC 31); 0: no bound but 10 years. Default 7 days.',
      format: 'nat',
      default: 604800,
    },
    warnSeconds: {
      doc: 'The vm.expiring webhook goes this many seconds before a lease expires, once per lease (SPEC 31); at most leases.maxSeconds.',
      format: 'nat',
      default: 300,
    },
    onExpiry: {
      doc: 'What runs when a lease expires, unless the create said otherwise (its onExpiry): "delete" removes the VM and the name; "stop" stops the VM and keeps the name recorded (state stopped), and a later create of the same spec starts it again (SPEC 31).',
      format: ['delete', 'stop'],
      default: 'delete',
    },
  },
  reconciler: {
    everySeconds: { doc: 'Interval of the reconcile sweep (SPEC 5).', format: 'positive-int', default: 300 },
    graceSeconds: { doc: 'VMs and seeds younger than this are never swept.', format: 'nat', default: 900 },
    recreateMissing: { doc: 'Enqueue a create for a present name whose VM is gone, or whose in-place change has no job left to apply it.', format: 'boolean-word', default: true },
    seedListingEvery: {
      doc: 'Every this many sweeps, on the first sweep of each worker process and on every sweep asked for by hand (`pve-provisioner reconcile`, dry or not), the sweep lists every node\'s seed storage (2 Proxmox calls per node) and refreshes the storages\' shared flags, to find seeds no record names (uploaded by an older release or by hand). The other sweeps judge seeds from the records each create writes before its upload. 1 lists on every sweep (SPEC 5, 26).',
      format: 'positive-int',
      default: 12,
    },
  },
  health: {
    everySeconds: { doc: 'Interval of the health job (SPEC 19).', format: 'positive-int', default: 60 },
  },
  http: {
    host: { doc: 'Address the web process listens on.', format: String, default: '127.0.0.1' },
    port: { doc: 'Port of the web process.', format: 'port', default: 8080 },
    apiTokensFile: { doc: 'File with the bearer tokens for /v1, one per line, each maybe followed by its tenant (SPEC 34): `<token> tenant=<name> scope=read|write|admin vms= cores= memoryMiB= diskGiB= createsPerMinute= webhookUrl=`; a token alone is the default tenant with the admin scope. Read at start (a bad line stops it, naming the line and key). Created with a random token when missing.', format: String, default: 'var/api-tokens' },
    boardUsersFile: { doc: 'File with Bull Board users, "user:password" per line. Created with a random password when missing.', format: String, default: 'var/board-users' },
    fingerprintKeyFile: {
      doc: 'File with the key of the userData and networkConfig fingerprints in answers (hmacSha256, SPEC 24), one line; every web process and CLI host of a deployment needs the same. With proxmox.url "sim" created with a random key when missing; otherwise required by the web process.',
      format: String,
      default: 'var/fingerprint-key',
    },
    authDisabled: { doc: 'Turn off API and Bull Board auth (logs a warning at start).', format: 'boolean-word', default: false },
    metricsAuth: {
      doc: 'Require an admin bearer token (from http.apiTokensFile: a plain line, or scope=admin) for /metrics and for the checks of /readyz, which name workers, hosts, nodes and images; without one /readyz still says ready or not and why in words. false opens both to anyone who reaches the port.',
      format: 'boolean-word',
      default: true,
    },
    maxJobWaiters: {
      doc: 'GET /v1/jobs/:id?waitSeconds= waits one web process holds at once; one more is a 503 with Retry-After. The waits on one job share one read of it (SPEC 24).',
      format: 'positive-int',
      default: 200,
    },
    eventStreamMaxSeconds: {
      doc: 'Longest a GET /v1/jobs/:id/events stream stays open: then a `reconnect` event and the server closes it; an EventSource reconnects with Last-Event-ID and goes on where it was (SPEC 24, 27).',
      format: 'positive-int',
      default: 900,
    },
    metricsCacheSeconds: {
      doc: 'The Redis figures of /metrics (queue counts, node health, address pools) are read at most once in this many seconds and shared by the scrapes meanwhile; 0 reads them on every scrape (SPEC 9, 24).',
      format: 'nat',
      default: 15,
    },
    boardWritable: {
      doc: 'Let Bull Board users retry, promote, clean, remove, pause and resume jobs and queues and edit schedulers; false (the default) makes the board read-only, its changing routes answering 405. Adding or editing job data stays refused, and with http.authDisabled the board stays read-only.',
      format: 'boolean-word',
      default: false,
    },
    publicUrl: {
      doc: "The service's address as its API callers reach it (https://provisioner.example.com, or with a path behind a proxy); the OpenAPI document's server is this URL followed by /v1, so a client generated from it works in Node without a base URL of its own; an image with readiness \"phone-home\" needs it, as its guests phone home to <http.publicUrl>/v1/ready/<token> (SPEC 29). Empty (the default) leaves the relative /v1.",
      format: 'public-url',
      default: '',
    },
    requestTimeoutMs: {
      doc: 'Longest time a client may take to send one whole request, headers and body, to the API or a worker\'s /metrics (the simulator has sim.requestTimeoutMs); then the connection is closed (ms). Bounds a body trickled a byte at a time.',
      format: 'positive-int',
      default: 30000,
    },
    idleTimeoutMs: {
      doc: 'A connection to the API or a worker\'s /metrics with no traffic either way for this long is closed (ms). Longer than the longest quiet answer: a job wait (waitSeconds, at most 60 s) and the event stream\'s heartbeat.',
      format: 'positive-int',
      default: 120000,
    },
    keepAliveTimeoutMs: {
      doc: 'An idle keep-alive connection to the API or a worker\'s /metrics is closed after this long (ms). Keep it longer than the idle timeout of a load balancer in front (often 60 s).',
      format: 'positive-int',
      default: 72000,
    },
    maxConnections: {
      doc: 'Connections the API, and a worker\'s /metrics, each hold at once; one more is closed on arrival and a warning is logged (at most once a minute). Keep the sum under the process\'s file-descriptor limit (ulimit -n).',
      format: 'positive-int',
      default: 1000,
    },
  },
  webhooks: {
    url: {
      doc: 'Where the worker POSTs vm.ready, vm.updated, vm.deleted and job.failed (SPEC 27); empty (the default) sends none. https:// or http:// to any host: the body holds no secret and is signed, so plain http only exposes what it says (VM names, addresses).',
      format: 'webhook-url',
      default: '',
    },
    secretFile: {
      doc: 'File with the HMAC-SHA256 secret the bodies are signed with (X-Signature-256), read at worker start. Required when url is set and never created: the receiver and every worker host must share the one secret.',
      format: String,
      default: 'var/webhook-secret',
    },
    attempts: { doc: 'Attempts of one delivery before it fails for good; any answer but 2xx, a refused connection or a timeout costs one.', format: 'positive-int', default: 15 },
    backoffMs: { doc: 'First redelivery delay (ms); doubles each attempt, with jitter (15 attempts from 1000 ms span about 4 hours).', format: 'positive-int', default: 1000 },
    timeoutMs: { doc: 'Longest one delivery may take, from connect to the whole answer (ms).', format: 'positive-int', default: 10000 },
    concurrency: { doc: 'Deliveries one worker process sends at once.', format: 'positive-int', default: 4 },
  },
  log: {
    level: { doc: 'pino level.', format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    pretty: { doc: 'Human-readable logs instead of JSON lines.', format: 'boolean-word', default: false },
  },
  sim: {
    host: { doc: 'Address the simulator listens on.', format: String, default: '127.0.0.1' },
    clusters: {
      doc: 'Simulated clusters (SPEC 32) with proxmox.url "sim" and proxmox.clusters empty: 1 (the default) is the one-cluster form; 2 or more starts that many simulators, clusters sim1, sim2, ..., the i-th (from 0) on sim.port + i (SIM_CLUSTERS=2 npm start).',
      format: 'positive-int',
      default: 1,
    },
    port: { doc: "Port of the simulator: its first node's pveproxy, the URL proxmox.url \"sim\" uses. Every other node listens on a free port of its own (printed by pve-provisioner sim, GET /_sim/nodes; SPEC 28).", format: 'port', default: 8006 },
    nodes: { doc: 'Simulated nodes, a JSON list of names; each has storages local, local-lvm, proxy-seeds and the shared vm-shared; node i (0-based) holds template 9001+i (debian) and 9100+i (unsuitable), the first node also 9200 on vm-shared.', format: 'name-list', default: ['pve1', 'pve2'] },
    vms: { doc: 'Foreign VMs the simulator starts with (not ours), spread over its nodes.', format: 'nat', default: 3 },
    timeScale: { doc: 'Multiplier on every simulated duration (0.01 runs 100 times faster).', format: 'non-negative-number', default: 0.1 },
    latencyMs: { doc: 'Latency added to every answer (ms).', format: 'nat', default: 0 },
    cloneSeconds: { doc: 'Duration of a clone task before timeScale (F16).', format: 'non-negative-number', default: 2 },
    taskSeconds: { doc: 'Duration of other tasks before timeScale.', format: 'non-negative-number', default: 1 },
    agentSeconds: { doc: 'Time from start until the guest agent reports an address, before timeScale (F21).', format: 'non-negative-number', default: 47 },
    proxyWorkers: {
      doc: "pveproxy workers per simulated node, each serving one call at a time (3 on a real host); the rest wait in arrival order (SPEC 28). Every call holds one for its parse and proxy step on the node it entered, and on the node it is proxied to; unprotected methods run there. A call proxied on (to another node or to pvedaemon) and not answered 30 s (before timeScale) later answers 596. 0: pveproxy not modelled, any number at once.",
      format: 'nat',
      default: 3,
    },
    daemonWorkers: {
      doc: "pvedaemon workers per simulated node, each serving one call at a time (3 on a real host); methods Proxmox registers protected (clone, config write, start, agent, upload, ...) run there (SPEC 28). 0: pvedaemon not modelled, any number at once.",
      format: 'nat',
      default: 3,
    },
    requestCostMs: { doc: "The time one call holds a worker, per step, before timeScale (ms); a node's full VM listing holds it once more per VM running there (their QMP is asked). An agent call while the agent is not up holds its pvedaemon worker 3 s more (the guest-ping timeout); an upload for another node 1 s more in the entry node's (two SSH commands).", format: 'non-negative-number', default: 20 },
    requestCostPerKibMs: { doc: 'The time added to a handler per KiB of its answer, before timeScale (ms): a /cluster/resources of 10,000 VMs (about 2.5 MiB) costs more than a config read.', format: 'non-negative-number', default: 0.05 },
    statdSeconds: { doc: "pvestatd's cycle before timeScale: /cluster/resources shows name, status and template as of the last cycle, a clone sampled in its temporary config as `VM <vmid>`, and a destroyed VM's sample at its VMID for 5 minutes (scaled) (0: always current).", format: 'non-negative-number', default: 10 },
    guestPorts: {
      doc: "Ports a simulated guest listens on once booted (sim.agentSeconds after its start), when its seed gives it a static address in 127.0.0.0/8 (SPEC 29): each connection gets an SSH-like banner, so `tcp` readiness finds it. A JSON list; [] listens on none. Ports under 1024 need root: a simulator run as another user needs a port above, the same as proxmox.images[].readinessPort.",
      format: 'port-list',
      default: [22],
    },
    tlsCert: { doc: 'PEM certificate; with tlsKey the simulator serves HTTPS.', format: String, default: '' },
    tlsKey: { doc: 'PEM key for tlsCert.', format: String, default: '' },
    stateFile: {
      doc: 'File the simulator keeps its VMs and volumes in across restarts (SPEC 24), so the registry and the simulator agree; empty keeps them in memory only. `pve-provisioner all` (npm start) uses var/sim-state.json when this is empty and SIM_STATE_FILE is not set.',
      format: String,
      default: '',
    },
    requestTimeoutMs: {
      doc: "Longest time the simulator waits for one whole request, headers and body (ms). Its own, not http.requestTimeoutMs: a request queued behind sim.proxyWorkers and sim.daemonWorkers or a latency fault leaves its body unread meanwhile, and a seed upload must not be cut off.",
      format: 'positive-int',
      default: 600000,
    },
    idleTimeoutMs: {
      doc: 'A connection to the simulator with no traffic either way for this long is closed (ms); above any answer it delays (queued requests, latency faults).',
      format: 'positive-int',
      default: 600000,
    },
    maxConnections: {
      doc: "Connections the simulator holds at once; one more is closed on arrival and a warning is logged (at most once a minute). Its own, not http.maxConnections: the workers' pooled connections under a chaos run or a benchmark come to hundreds. Keep it under the process's file-descriptor limit (ulimit -n).",
      format: 'positive-int',
      default: 10000,
    },
  },
};
