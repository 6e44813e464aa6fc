import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay on loopback that a test controls: the service talks to Redis through it, and `cut()`
 * drops every connection and refuses new ones (as a dead Redis or a broken network would) without
 * touching the shared Redis itself. `restore()` lets connections through again.
 */
export async function startTcpRelay(target: string) {
  const u = new URL(target);
  const host = u.hostname;
  const port = Number(u.port || 6379);
  let cut = false;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const relayPort = (server.address() as AddressInfo).port;
  const url = new URL(target);
  url.host = `127.0.0.1:${relayPort}`;
  return {
    /** The Redis URL to give the service: same database index and credentials, through the relay. */
    url: url.toString(),
    cut() {
      cut = true;
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    restore() {
      cut = false;
    },
    async close() {
      this.cut();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
