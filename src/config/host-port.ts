// `host:port` as redis.clusterNodes and redis.sentinel.nodes hold them (SPEC 25).
// Apart from the config formats (list-formats.ts) so the producer library reaches it without convict.
/** host and port of `host:port` or `[v6]:port`; undefined when it is not that. */
export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}
