// Types of scripts/build-server.mjs for the TypeScript tests that import it.
export const ROOT: string;
export const SOURCE_DIRS: string[];
export const KEEP: number;

export interface ServerBuild {
  hash: string;
  /** dist/server/<hash> under the root. */
  dir: string;
  files: number;
  /** This call transpiled and renamed the build into place. */
  built: boolean;
  /** This call transpiled, but another process renamed the same build into place first. */
  raced: boolean;
  ms: number;
}

export function sourceFiles(root?: string): string[];
export function sourceHash(root?: string, files?: string[]): string;
export function pruneBuilds(outRoot: string, current: string, keep?: number): string[];
export function buildServer(opts?: { root?: string; keep?: number; log?: (message: string) => void }): Promise<ServerBuild>;
export function stopEsbuild(): Promise<void>;
