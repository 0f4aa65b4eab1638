/** Why `keel serve` could not open its listener, as one sentence that says what to change. */
import { BootError } from '../boot-error.js';

export function listenRefusal(err: unknown, host: string, port: number): BootError | null {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new BootError(`Port ${port} on ${host} is already in use by another process; stop it, or choose another port with --port (or server.port in the config).`, { cause: err });
    case 'EACCES':
    case 'EPERM':
      return new BootError(`This user may not listen on ${where} (ports below 1024 need privileges); choose another port with --port.`, { cause: err });
    case 'EADDRNOTAVAIL':
      return new BootError(`Cannot listen on ${host}: no network interface of this machine has that address; use --host 127.0.0.1 or another local address.`, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new BootError(`Cannot listen on ${host}: the host name does not resolve; use --host with an IP address of this machine, such as 127.0.0.1.`, { cause: err });
    default:
      return null;
  }
}
