/** Binds a baseline server to a free loopback port, with the kernel's keep-alive timeout. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export function listenLoopback(server: http.Server): Promise<number> {
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
