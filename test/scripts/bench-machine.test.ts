// bench/machine.mjs: the machine line of a bench run's results, read from
// lscpu's JSON (flat, or nested under "children" as newer util-linux does) or
// from /proc/cpuinfo where lscpu is missing.
import t from "tap";
import { describeMachine, machineFromCpuinfo, machineFromLscpu, readMachine } from "../../bench/machine.mjs";

const flat = {
  lscpu: [
    { field: "Architecture:", data: "x86_64" },
    { field: "CPU(s):", data: "2" },
    { field: "Model name:", data: "Intel(R) Xeon(R) Processor" },
    { field: "CPU family:", data: "6" },
    { field: "Model:", data: "167" },
    { field: "Stepping:", data: "1" },
    { field: "L1d cache:", data: "96 KiB (2 instances)" },
    { field: "L2 cache:", data: "4 MiB (2 instances)" },
    { field: "L3 cache:", data: "480 MiB (1 instance)" },
    { field: "Hypervisor vendor:", data: "KVM" },
  ],
};

t.test("lscpu's flat JSON", async (t) => {
  const m = machineFromLscpu(flat);
  t.same(m, {
    model: "Intel(R) Xeon(R) Processor",
    family: "6",
    modelNumber: "167",
    stepping: "1",
    cpus: "2",
    l1d: "96 KiB (2 instances)",
    l2: "4 MiB (2 instances)",
    l3: "480 MiB (1 instance)",
    hypervisor: "KVM",
  });
  t.equal(describeMachine(m), "Intel(R) Xeon(R) Processor (family 6, model 167, stepping 1), 2 CPUs, L1d 96 KiB (2 instances), L2 4 MiB (2 instances), L3 480 MiB (1 instance), under KVM");
});

t.test("lscpu's nested JSON (fields under children, null data skipped)", async (t) => {
  const nested = {
    lscpu: [
      { field: "Architecture:", data: "aarch64", children: [{ field: "CPU op-mode(s):", data: "64-bit" }] },
      {
        field: "Vendor ID:",
        data: "ARM",
        children: [
          {
            field: "Model name:",
            data: "Neoverse-N1",
            children: [
              { field: "Model:", data: "1" },
              { field: "Stepping:", data: null },
            ],
          },
        ],
      },
      {
        field: "Caches (sum of all):",
        data: null,
        children: [
          { field: "L2:", data: "2 MiB (2 instances)" },
          { field: "L2 cache:", data: "2 MiB (2 instances)" },
        ],
      },
    ],
  };
  const m = machineFromLscpu(nested);
  t.same(m, { model: "Neoverse-N1", modelNumber: "1", l2: "2 MiB (2 instances)" });
  t.equal(describeMachine(m), "Neoverse-N1 (model 1), L2 2 MiB (2 instances)");
});

t.test("no model name: undefined, and described as unknown", async (t) => {
  t.equal(machineFromLscpu({ lscpu: [{ field: "CPU(s):", data: "2" }] }), undefined);
  t.equal(machineFromLscpu({}), undefined);
  t.equal(machineFromLscpu(null), undefined);
  t.equal(describeMachine(undefined), "unknown");
});

t.test("/proc/cpuinfo", async (t) => {
  const text = [
    "processor\t: 0",
    "cpu family\t: 6",
    "model\t\t: 167",
    "model name\t: Intel(R) Xeon(R) Processor",
    "",
    "processor\t: 1",
    "cpu family\t: 6",
    "model\t\t: 167",
    "model name\t: Intel(R) Xeon(R) Processor",
    "",
  ].join("\n");
  const m = machineFromCpuinfo(text);
  t.same(m, { model: "Intel(R) Xeon(R) Processor", cpus: "2", family: "6", modelNumber: "167" });
  t.equal(describeMachine(m), "Intel(R) Xeon(R) Processor (family 6, model 167), 2 CPUs");
  t.equal(machineFromCpuinfo("processor\t: 0\n"), undefined);
  t.same(machineFromCpuinfo("model name\t: Some CPU\n"), { model: "Some CPU", cpus: "1" });
});

t.test("this machine: a model name, from lscpu or /proc/cpuinfo", { skip: process.platform !== "linux" && "Linux only" }, async (t) => {
  const m = readMachine();
  t.ok(m, "read");
  t.type(m?.model, "string");
  t.ok(m!.model.length > 0);
});
