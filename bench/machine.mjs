// The machine a bench run ran on, for its results: the CPU model and caches
// as lscpu reports them. Ratios to the bare proxy move with the machine, not
// only with how busy it is (bench/results/2026-11-28-rounds.md, fifteenth round: the same build
// measured 1.67x on one machine and 2.1x on another, both in steady spells),
// so a run is only comparable with runs on the same kind of machine.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** lscpu's fields, flattened (util-linux nests some under "children"); keys without the trailing colon. */
function fields(entries, out = new Map()) {
  for (const e of entries ?? []) {
    if (typeof e?.field === "string" && e.data != null) out.set(e.field.replace(/:$/, "").trim(), String(e.data));
    if (Array.isArray(e?.children)) fields(e.children, out);
  }
  return out;
}

/** The machine from `lscpu -J` output (the parsed JSON); undefined when it names no CPU model. */
export function machineFromLscpu(json) {
  const f = fields(json?.lscpu);
  const model = f.get("Model name");
  if (!model) return undefined;
  const m = { model };
  const keys = {
    family: "CPU family",
    modelNumber: "Model",
    stepping: "Stepping",
    cpus: "CPU(s)",
    l1d: "L1d cache",
    l1i: "L1i cache",
    l2: "L2 cache",
    l3: "L3 cache",
    hypervisor: "Hypervisor vendor",
  };
  for (const [k, name] of Object.entries(keys)) {
    const v = f.get(name);
    if (v) m[k] = v;
  }
  return m;
}

/** The machine from /proc/cpuinfo's text, where lscpu is missing: the model name and the CPU count. */
export function machineFromCpuinfo(text) {
  const names = [...text.matchAll(/^model name\s*:\s*(.+)$/gm)].map((x) => x[1].trim());
  if (!names.length) return undefined;
  const m = { model: names[0], cpus: String(names.length) };
  const family = /^cpu family\s*:\s*(\d+)$/m.exec(text);
  const model = /^model\s*:\s*(\d+)$/m.exec(text);
  if (family) m.family = family[1];
  if (model) m.modelNumber = model[1];
  return m;
}

/** One line for the results: "Intel(R) Xeon(R) Processor (family 6, model 167), 2 CPUs, L2 4 MiB (2 instances), ..., KVM". */
export function describeMachine(m) {
  if (!m) return "unknown";
  const id = [m.family && `family ${m.family}`, m.modelNumber && `model ${m.modelNumber}`, m.stepping && `stepping ${m.stepping}`].filter(Boolean).join(", ");
  const parts = [id ? `${m.model} (${id})` : m.model];
  if (m.cpus) parts.push(`${m.cpus} CPUs`);
  for (const [k, label] of [
    ["l1d", "L1d"],
    ["l1i", "L1i"],
    ["l2", "L2"],
    ["l3", "L3"],
  ])
    if (m[k]) parts.push(`${label} ${m[k]}`);
  if (m.hypervisor) parts.push(`under ${m.hypervisor}`);
  return parts.join(", ");
}

/** This machine: lscpu where it runs, else /proc/cpuinfo; undefined where neither says. */
export function readMachine() {
  try {
    const m = machineFromLscpu(JSON.parse(execFileSync("lscpu", ["-J"], { stdio: ["ignore", "pipe", "ignore"] }).toString()));
    if (m) return m;
  } catch {
    /* no lscpu, or no JSON output: below */
  }
  try {
    return machineFromCpuinfo(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return undefined;
  }
}
