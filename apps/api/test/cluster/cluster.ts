import { type DatabaseProxy, startDatabaseProxy } from "@verbatim/testkit/database-proxy";
import {
  jobServiceEnvironment,
  listeningUrl,
  type ServiceProcess,
  startServiceProcess,
} from "../audio/service-process.ts";

/** Where the cluster's processes find the fakes, the database (through the proxy) and how fast they work. */
export interface ClusterEnvironment {
  proxy: DatabaseProxy;
  youtubeOrigin: string;
}

/** One process of the cluster, with its role and what became of it. */
export interface ClusterProcess {
  name: string;
  role: "api" | "worker";
  service: ServiceProcess;
  /** The API's base URL; workers serve none. */
  baseUrl?: string;
  /** Whether the test signalled it: any other exit is a crash. */
  signalled: boolean;
}

/**
 * API and worker processes of `src/main.ts` on one PostgreSQL database, reached through a proxy
 * that can take it away. Every process ever started is kept, so the test kills them all at the end.
 */
export class Cluster {
  readonly started: ClusterProcess[] = [];
  private readonly running: ClusterProcess[] = [];

  private constructor(private readonly environment: Record<string, string>) {}

  static async start(databaseUrl: string, youtubeOrigin: string): Promise<{ cluster: Cluster; proxy: DatabaseProxy }> {
    const proxy = await startDatabaseProxy(databaseUrl);
    const cluster = new Cluster({
      ...jobServiceEnvironment,
      DATABASE_URL: proxy.url,
      VERBATIM_YOUTUBE_ORIGIN: youtubeOrigin,
      VERBATIM_YOUTUBE_MEDIA_ORIGIN: youtubeOrigin,
      // Monitors are made due every few seconds; a check a dead worker held is taken up again soon.
      VERBATIM_SCHEDULER_TICK_SECONDS: "0.5",
      VERBATIM_MONITOR_CLAIM_SECONDS: "5",
      VERBATIM_WEBHOOK_RETRY_SCHEDULE: "1,1,2,2,3,5,5,10",
    });
    return { cluster, proxy };
  }

  /** The base URLs of the API processes now running. */
  apiUrls(): string[] {
    return this.running.flatMap((process) => (process.baseUrl ? [process.baseUrl] : []));
  }

  workers(): ClusterProcess[] {
    return this.running.filter((process) => process.role === "worker");
  }

  apis(): ClusterProcess[] {
    return this.running.filter((process) => process.role === "api");
  }

  /** Starts an API process and waits until it listens; the first prints the development account's key. */
  async startApi(name: string): Promise<ClusterProcess> {
    const service = startServiceProcess({ ...this.environment, VERBATIM_ROLE: "api" });
    const process: ClusterProcess = { name, role: "api", service, signalled: false };
    this.started.push(process);
    process.baseUrl = await listeningUrl(service, 60_000);
    this.running.push(process);
    return process;
  }

  async startWorker(name: string): Promise<ClusterProcess> {
    const service = startServiceProcess({ ...this.environment, VERBATIM_ROLE: "worker" });
    const process: ClusterProcess = { name, role: "worker", service, signalled: false };
    this.started.push(process);
    await service.waitForLine(/Verbatim worker running/, 60_000);
    this.running.push(process);
    return process;
  }

  /** Signals a process and waits for it to exit; answers its exit code (null when a signal ended it). */
  async stop(process: ClusterProcess, signal: NodeJS.Signals): Promise<number | null> {
    this.forget(process);
    return this.signal(process, signal);
  }

  /**
   * Kills an API process with SIGKILL but leaves its address in the clients' rotation, as a load
   * balancer would until its health check notices: requests meet a dead port until `forget`.
   */
  async crash(process: ClusterProcess): Promise<void> {
    await this.signal(process, "SIGKILL");
  }

  /** Takes a process out of the rotation. */
  forget(process: ClusterProcess): void {
    if (this.running.includes(process)) this.running.splice(this.running.indexOf(process), 1);
  }

  /** Processes that exited without being signalled by the test. */
  crashed(): ClusterProcess[] {
    return this.started.filter((process) => !process.signalled && process.service.process.exitCode !== null);
  }

  private async signal(process: ClusterProcess, signal: NodeJS.Signals): Promise<number | null> {
    process.signalled = true;
    await process.service.kill(signal);
    return process.service.process.exitCode;
  }

  /** Kills every process ever started, whatever state it is in. */
  async killAll(): Promise<void> {
    await Promise.all(this.started.map((process) => process.service.kill("SIGKILL")));
  }
}
