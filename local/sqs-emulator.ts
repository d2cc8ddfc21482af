import { startFauxqs } from "fauxqs";

export interface SqsEmulator {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts fauxqs in this process; it keeps nothing across restarts. */
export async function startSqsEmulator(options: { port?: number } = {}): Promise<SqsEmulator> {
  const server = await startFauxqs({ port: options.port ?? 0, host: "127.0.0.1", logger: false });
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    port: server.port,
    stop: () => server.stop(),
  };
}
