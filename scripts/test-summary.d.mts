export interface FileTime {
  file: string;
  seconds: number;
}
export function slowestFiles(times: ReadonlyArray<FileTime>): FileTime[];
export function describeFailures(failures: ReadonlyArray<string>): string;
export function describeSlowest(slowest: ReadonlyArray<FileTime>): string;
