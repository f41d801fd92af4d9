// The booted guest's TCP ports (SPEC 29): when its static address is a
// loopback one, the simulator listens there on sim.guestPorts, so a `tcp`
// readiness probe lands on it; each connection gets an SSH-like banner
// and is closed. Nothing listens for a guest whose address is off this
// machine, or one with a DHCP address.
import { createServer, type Server, type Socket } from 'node:net';

export const GUEST_BANNER = 'SSH-2.0-pve-sim\r\n';

export interface GuestListeners {
  /** `address:port` of each listener that is bound. */
  listening: string[];
  /** `address:port: why` of each that could not be (a port taken, a port under 1024 without root). */
  failed: string[];
  close(): Promise<void>;
}

function listenOne(address: string, port: number, sockets: Set<Socket>): Promise<Server> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.end(GUEST_BANNER);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Listens on every port at the address; a port that cannot be bound is reported, not thrown. */
export async function openGuestListeners(address: string, ports: readonly number[]): Promise<GuestListeners> {
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const listening: string[] = [];
  const failed: string[] = [];
  for (const port of ports) {
    try {
      servers.push(await listenOne(address, port, sockets));
      listening.push(`${address}:${port}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      const why = code === 'EACCES' && port < 1024 ? 'EACCES (a port under 1024 needs root; set sim.guestPorts and images[].readinessPort to one above)' : code;
      failed.push(`${address}:${port}: ${why}`);
    }
  }
  return {
    listening,
    failed,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}
