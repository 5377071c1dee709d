/** What lscpu (or /proc/cpuinfo) says about the CPU; every field but the model is optional. */
export interface Machine {
  model: string;
  family?: string;
  modelNumber?: string;
  stepping?: string;
  cpus?: string;
  l1d?: string;
  l1i?: string;
  l2?: string;
  l3?: string;
  hypervisor?: string;
}
export function machineFromLscpu(json: unknown): Machine | undefined;
export function machineFromCpuinfo(text: string): Machine | undefined;
export function describeMachine(m: Machine | undefined): string;
export function readMachine(): Machine | undefined;
