import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A one-way network link between two nodes on loopback: a TCP proxy that node A is given as
 * node B's URL. `cut()` drops every open connection and refuses new ones (a partition);
 * `heal()` lets traffic through again. Real sockets, real HTTP in between.
 */
export interface Link {
  port: number;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function linkTo(targetPort: number, listenPort: number): Promise<Link> {
  let open = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => resolve());
  });
  return {
    port: listenPort,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    heal() {
      open = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
