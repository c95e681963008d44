/* audit/check-catalog.c - check_catalog[]: one row per check; its lookups */
#include "config.h"
#include "audit/check-catalog.h"
#include "audit/check-observe.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/*** The catalog ***/

static const char *const onoff[] = { "on", "off", NULL };
static const char *const governors[] = { "performance", "powersave", "schedutil", "ondemand",
	"conservative", "userspace", NULL };
static const char *const thp_modes[] = { "always", "madvise", "never", NULL };

#define NUM (CMP_EXPECT | CMP_MIN | CMP_MAX)
#define MINMAX (CMP_MIN | CMP_MAX)

/* One row per check, designated: a new check is one row here, its observe
 * function (audit/check-observe.c, declared in audit/check-observe.h), its
 * entry in nodeaudit-checks(7) and a test (HACKING). */
const struct check check_catalog[] = {
	{ .id = "host.virtualized",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "host.virtualized, host.hypervisor",
	  .title = "Running on bare metal",
	  .observe = obs_host_virt,
	  .part = PART_SETTING,
	  .what = "Whether the node is a virtual machine (true) or bare metal (false).",
	  .why = "A guest sees virtual NUMA, virtual CPUs and no DIMMs: SMT, memory channels, ECC and PCIe "
	  "link facts come from the hypervisor's model, not the hardware, and pinning per NUMA node "
	  "(45%+ throughput on 2-socket servers in the CPU field reports, nodeaudit-checks(7)) "
	  "only helps if the host pins the vCPUs too.",
	  .fixes = {
		{ .kind = "hardware", .text = "Run inference nodes on bare metal, or pin vCPUs and guest memory to host "
		  "NUMA nodes and pass the host topology through" } } },

	{ .id = "cpu.smt",
	  .type = V_ONOFF,
	  .cmps = CMP_EXPECT,
	  .values = onoff,
	  .facts = "cpu.smt.active, cpu.smt.threads_per_core, cpu.smt.control",
	  .title = "SMT (Hyper-Threading)",
	  .observe = obs_cpu_smt,
	  .part = PART_SMT,
	  .labels = "cpu.smt",
	  .what = "Whether simultaneous multithreading is active: two (or more) hardware threads per core.",
	  .why = "For mixed compute/memory inference the two threads of a core compete for execution units "
	  "and L1; CPU field reports measure 8-12% lower throughput with SMT on "
	  "(nodeaudit-checks(7)). Inference "
	  "nodes turn it off, or run one thread per physical core.",
	  .fixes = {
		{ .kind = "bios", .text = "Disable Hyper-Threading / SMT in the firmware setup" },
		{ .kind = "runtime", .command = "echo off > /sys/devices/system/cpu/smt/control", .step = "smt", .key = "/sys/devices/system/cpu/smt/control", .value = "off" },
		{ .kind = "cmdline", .text = "Add 'nosmt' to the kernel command line" } } },

	{ .id = "cpu.governor",
	  .type = V_STR,
	  .cmps = CMP_EXPECT,
	  .values = governors,
	  .facts = "kernel.governor, kernel.cpufreq.governor",
	  .title = "CPU frequency governor",
	  .observe = obs_cpu_governor,
	  .part = PART_PACKAGE,
	  .what = "The cpufreq governor of every policy (\"mixed\" when they differ).",
	  .why = "The deployment guide of a 4096-node ARM agent cluster (nodeaudit-checks(7)) sets the "
	  "governor "
	  "to performance: the orchestration "
	  "loop is single-thread bound and latency suffers while a ramping governor raises the clock.",
	  .fixes = {
		{ .kind = "runtime", .command = "cpupower frequency-set -g {expected}", .step = "governor", .key = "/sys/devices/system/cpu/cpufreq/policy*/scaling_governor", .value = "{expected}" },
		{ .kind = "systemd", .text = "Make it persistent: a tuned profile (throughput-performance) or a "
		  "oneshot unit running 'cpupower frequency-set -g {expected}'" } } },

	{ .id = "cpu.isa",
	  .type = V_SET,
	  .cmps = CMP_EXPECT,
	  .facts = "cpu.isa",
	  .title = "Instruction sets for inference",
	  .observe = obs_cpu_isa,
	  .part = PART_PACKAGE,
	  .labels = "cpu.isa.*",
	  .what = "Whether the CPU has at least one of the listed instruction-set flags (avx2, avx512f, "
	  "avx512_vnni, amx_int8, neon, sve, i8mm, dotprod...).",
	  .why = "Quantised GGUF decode (Q4_K_M/Q5_K_M in the field reports, nodeaudit-checks(7)) runs "
	  "SIMD dot products; without AVX2 on x86, or NEON's int8 dot product (dotprod, Armv8.2) "
	  "on Arm, the kernels fall back to slower code (NEON alone multiplies and adds "
	  "lane by lane) and the node is compute bound instead of "
	  "memory-bandwidth bound. VNNI, AMX, i8mm and SVE speed up int8 further.",
	  .fixes = {
		{ .kind = "hardware", .text = "Use a CPU with {expected} (or run a build of the model runtime for this ISA)" } } },

	{ .id = "cpu.hybrid.pcores",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "cpu.hybrid, cpu.kinds[].name, cpu.kinds[].cores, cpu.kinds[].cpus",
	  .title = "P-cores available",
	  .observe = obs_cpu_pcores,
	  .part = PART_PACKAGE,
	  .labels = "cpu.hybrid cpu.cores.*",
	  .what = "On hybrid CPUs, the number of online performance cores (skipped on non-hybrid CPUs).",
	  .why = "The agent's main loop and inference belong on P-cores, logs and heartbeats on E-cores; "
	  "pinning so cut P99 latency from 800 ms to 350 ms in a CPU field report "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "runtime", .command = "echo 1 > /sys/devices/system/cpu/cpuN/online" },
		{ .kind = "bios", .text = "Enable the P-cores in the firmware setup" } } },

	{ .id = "cpu.max_mhz",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "cpu.max_mhz",
	  .unit = "MHz",
	  .title = "Highest core frequency",
	  .observe = obs_cpu_max_mhz,
	  .part = PART_PACKAGE,
	  .metrics = "nodeaudit_cpu_max_frequency_hertz",
	  .what = "The highest maximum frequency over the core kinds, in MHz.",
	  .why = "Orchestration (55-80% of an agent's CPU time: JSON, routing, context assembly) is "
	  "single-thread bound; high base/turbo frequency beat many slow cores by 40%+ for the same "
	  "core count in the CPU field reports (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "bios", .text = "Enable turbo / boost in the firmware setup" },
		{ .kind = "hardware", .text = "Use a CPU with a higher single-core frequency for orchestration nodes" } } },

	{ .id = "numa.balancing",
	  .type = V_ONOFF,
	  .cmps = CMP_EXPECT,
	  .values = onoff,
	  .facts = "kernel.numa_balancing, kernel.sysctl.\"kernel.numa_balancing\", numa.node_count",
	  .sysctl = "kernel.numa_balancing",
	  .title = "Automatic NUMA balancing",
	  .observe = obs_numa_balancing,
	  .part = PART_SETTING,
	  .what = "Whether the kernel migrates pages and tasks between NUMA nodes on its own (skipped with one node).",
	  .why = "Inference bound to one node's cores and memory (numactl --cpunodebind=N --membind=N) "
	  "gains 45%+ on 2-socket servers in the CPU field reports (nodeaudit-checks(7)); with the "
	  "placement done by hand the balancer "
	  "only adds page-fault scans and migrations that fight it.",
	  .disagree = "Sources disagree. llama.cpp warns at start-up that NUMA balancing is on and hurts "
	  "(its --numa modes assume fixed placement). Intel's PerfSpect recommends it on, for "
	  "general unpinned workloads. tuned's hpc-compute profile turns it off. nodeaudit follows "
	  "the placement: agent-cpu-inference pins one worker per node (see 'nodeaudit plan'), so "
	  "it expects off; base and agent-orchestrator, whose processes are not pinned, do not check it.",
	  .fixes = {
		{ .kind = "sysctl", .command = "sysctl -w kernel.numa_balancing=0", .text = "kernel.numa_balancing = 0 in /etc/sysctl.d/90-nodeaudit.conf", .step = "sysctl", .key = "kernel.numa_balancing", .value = "0" },
		{ .kind = "cmdline", .text = "Add 'numa_balancing=disable' to the kernel command line" } } },

	{ .id = "numa.nodes.memory_balanced",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "numa.nodes[].id, numa.nodes[].memory_bytes, numa.nodes[].cpus, numa.nodes[].cpu_count",
	  .unit = "ratio",
	  .title = "Memory balanced across NUMA nodes",
	  .observe = obs_numa_mem_balanced,
	  .part = PART_NUMA,
	  .metrics = "nodeaudit_numa_node_memory_bytes",
	  .what = "Smallest over largest memory of the NUMA nodes that have CPUs (1.0 = equal; skipped with one node).",
	  .why = "Each node runs its own pinned worker on its local memory; a node with less memory holds "
	  "a smaller model or spills to the remote node, and remote memory costs the 45%+ that "
	  "binding gains (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Populate the same DIMMs on every socket" } } },

	{ .id = "memory.ecc",
	  .type = V_ONOFF,
	  .cmps = CMP_EXPECT,
	  .values = onoff,
	  .facts = "memory.ecc.mode, memory.ecc.source",
	  .title = "ECC memory",
	  .observe = obs_memory_ecc,
	  .part = PART_MEMORY,
	  .labels = "memory.ecc",
	  .what = "Whether memory error correction is on (single-bit, multi-bit or CRC ECC).",
	  .why = "ECC memory is mandatory on long-running agent nodes: silent bit flips corrupt session "
	  "state and crash processes in ways that are hard to trace, as the CPU field reports put it "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "bios", .text = "Enable ECC in the firmware setup" },
		{ .kind = "hardware", .text = "Install ECC DIMMs (RDIMM) on a platform that supports them" } } },

	{ .id = "memory.ecc.errors",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.ecc.uncorrected_errors, memory.ecc.corrected_errors",
	  .title = "Uncorrected memory errors",
	  .observe = obs_memory_ecc_errors,
	  .part = PART_MEMORY,
	  .metrics = "nodeaudit_memory_ecc_uncorrected_errors_total nodeaudit_memory_ecc_corrected_errors_total",
	  .what = "Uncorrected ECC errors counted since boot (EDAC).",
	  .why = "An uncorrected error means data was lost: the node cannot be trusted with session state "
	  "(the field reports make ECC mandatory for agent nodes: nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Find the DIMM with 'edac-util -v' or the BMC event log and replace it" } } },

	{ .id = "memory.channels.populated_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.channels.populated, memory.channels.total, memory.channels.list",
	  .unit = "ratio",
	  .title = "Memory channels populated",
	  .observe = obs_mem_channels_ratio,
	  .part = PART_SLOTS,
	  .metrics = "nodeaudit_memory_channels nodeaudit_memory_channels_populated",
	  .labels = "memory.channels.populated memory.channels.total",
	  .what = "Populated memory channels over the channels the platform has (1.0 = all).",
	  .why = "Decode is bound by memory bandwidth: every token streams every weight once. An 8-channel "
	  "DDR4 host (~190 GB/s theoretical, 25-50% effective) gives 20-40 tokens/s on a 7B model at "
	  "Q4 in the CPU field reports; each empty channel cuts that in proportion "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Put one DIMM in every memory channel: the empty slots the finding names (A1, B1, C1... on most boards)" } } },

	{ .id = "memory.channels.balanced",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "memory.channels.balanced, memory.channels.list",
	  .title = "Memory channels balanced",
	  .observe = obs_mem_channels_balanced,
	  .part = PART_SLOTS,
	  .labels = "memory.channels.balanced",
	  .what = "Whether every populated channel has the same capacity.",
	  .why = "Interleaving across channels needs equal capacity; an unbalanced channel leaves part of "
	  "memory on fewer channels, at a fraction of the bandwidth decode depends on "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Use identical DIMMs, the same number in every channel" } } },

	{ .id = "memory.speed.configured_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.speed.configured_mts, memory.speed.rated_mts",
	  .unit = "ratio",
	  .title = "Memory runs at its rated speed",
	  .observe = obs_mem_speed_ratio,
	  .part = PART_DIMMS,
	  .what = "Configured memory speed over the DIMMs' rated speed (1.0 = full speed).",
	  .why = "Bandwidth is channels x transfer rate; mixed DIMM speeds or a down-clocked configuration "
	  "cut decode tokens/s directly (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "bios", .text = "Set the memory frequency to the DIMMs' rated speed (or to Auto/XMP/EXPO)" },
		{ .kind = "hardware", .text = "Use DIMMs of one speed; fewer DIMMs per channel allow higher speeds" } } },

	{ .id = "memory.per_core_bytes",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.total_bytes, cpu.cores",
	  .unit = "bytes",
	  .title = "Memory per core",
	  .observe = obs_mem_per_core,
	  .part = PART_MEMORY,
	  .what = "Total memory (MemTotal) divided by the online physical cores, in bytes.",
	  .why = "CPU inference nodes in the field pair 64-128 cores with 512 GB-1 TB of RAM, i.e. 4-8 "
	  "GiB per core, for quantised 7B/13B models and 250-400 agent sessions each "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Add memory (in every channel, to keep them balanced)" } } },

	{ .id = "pci.accelerator.link_width_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.accelerators[].link.width.current, pci.accelerators[].link.width.max, pci.accelerators[].upstream.width_max",
	  .unit = "ratio",
	  .title = "Accelerator PCIe link width",
	  .observe = obs_acc_width,
	  .part = PART_LINK,
	  .devices = "pci.accelerators",
	  .metrics = "nodeaudit_pci_link_width nodeaudit_pci_link_width_max",
	  .labels = "pci.accelerators.link",
	  .what = "Lowest negotiated link width over the accelerators, against the narrower of what the card "
	  "and its slot allow (1.0 = as wide as it can be; a x16 card in a slot wired x8 at x8 passes; "
	  "skipped without accelerators).",
	  .why = "Boards may lack lanes for every card: four modules on lanes for two run at half width "
	  "and higher latency in an accelerator-module write-up (nodeaudit-checks(7)). Unlike "
	  "speed, a lower width is real, not power saving.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the card to a slot wired for its full width, or check the "
		  "slot bifurcation setting in the firmware" } } },

	{ .id = "pci.accelerator.link_speed",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.accelerators[].link.speed_gts.current, pci.accelerators[].link.speed_gts.max",
	  .unit = "ratio",
	  .title = "Accelerator PCIe link speed",
	  .observe = obs_acc_speed,
	  .part = PART_LINK,
	  .devices = "pci.accelerators",
	  .metrics = "nodeaudit_pci_link_speed_transfers_per_second nodeaudit_pci_link_speed_max_transfers_per_second",
	  .what = "Lowest current/maximum link speed over the accelerators (1.0 = full speed).",
	  .why = "GPUs lower their link speed at idle to save power (nodeaudit-checks(7)), so a low "
	  "reading on an "
	  "idle node is not a fault: re-check under load. A link that stays slow under load halves "
	  "host-device bandwidth per generation lost.",
	  .fixes = {
		{ .kind = "runtime", .text = "Re-run 'nodeaudit check' while the accelerator is busy" },
		{ .kind = "bios", .text = "Set the slot's PCIe generation to Auto or its maximum in the firmware" } } },

	{ .id = "pci.accelerator.numa_known",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators[].numa_node, numa.node_count",
	  .title = "Accelerator NUMA node known",
	  .observe = obs_acc_numa_known,
	  .part = PART_DEVICE,
	  .devices = "pci.accelerators",
	  .what = "Whether the firmware tells the NUMA node of every accelerator (skipped with one node).",
	  .why = "The process feeding an accelerator must sit on its NUMA node: 30% was lost when it ran "
	  "on the other socket in a CPU field report (nodeaudit-checks(7)). Without the node "
	  "(numa_node -1) nobody can place it.",
	  .fixes = {
		{ .kind = "bios", .text = "Enable ACPI SRAT/_PXM reporting (NUMA / 'sub-NUMA' settings) in the firmware" } } },

	{ .id = "pci.accelerator.numa_local",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators[].local_cpus, pci.accelerators[].numa_node, numa.nodes[].id, numa.nodes[].cpus",
	  .title = "CPUs local to every accelerator",
	  .observe = obs_acc_numa_local,
	  .part = PART_DEVICE,
	  .devices = "pci.accelerators",
	  .what = "Whether every accelerator has CPUs local to it (its NUMA node is not CPU-less).",
	  .why = "The feeding process must run on the accelerator's node; 30% throughput was lost across "
	  "sockets in a CPU field report (nodeaudit-checks(7)). A device on a CPU-less node or "
	  "with no local CPUs always pays that.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the card to a slot attached to a socket with CPUs" } } },

	{ .id = "pci.accelerator.uplink",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators[].shared_uplink.oversubscribed, pci.accelerators[].shared_uplink.devices",
	  .title = "Accelerator uplink oversubscribed",
	  .observe = obs_acc_uplink,
	  .part = PART_UPLINK,
	  .devices = "pci.accelerators",
	  .what = "Whether any accelerator shares a switch or root port whose link carries less than the "
	  "devices behind it need (true = oversubscribed).",
	  .why = "Four modules on lanes for two means half-speed transfers and higher latency in an "
	  "accelerator-module write-up (nodeaudit-checks(7)); "
	  "check what else shares each accelerator's switch or root port.",
	  .fixes = {
		{ .kind = "hardware", .text = "Spread the cards over root ports, or use a switch with a wider uplink" } } },

	{ .id = "pci.accelerator.uplink_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.accelerators[].upstream.width_max, pci.accelerators[].upstream.speed_gts_max, pci.accelerators[].link.width.max, pci.accelerators[].link.speed_gts.max",
	  .unit = "ratio",
	  .title = "Accelerator upstream port capacity",
	  .observe = obs_acc_uplink_ratio,
	  .part = PART_LINK,
	  .devices = "pci.accelerators",
	  .what = "Lowest ratio over the accelerators of what the port above the card can carry (width x "
	  "speed) to what the card can use (1.0 or more = the port does not limit it).",
	  .why = "A board may not have lanes for every card at full width: four modules on lanes for two "
	  "run at half speed (nodeaudit-checks(7)), whatever each card negotiates with its own "
	  "switch port.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the card behind a port (or switch uplink) as wide and fast as the card" } } },

	{ .id = "pci.accelerator.nic_switch",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators, pci.nics, pci.matrix.switch_pairs, pci.matrix.paths, pci.matrix.info",
	  .title = "Accelerator and NIC under one switch",
	  .observe = obs_acc_nic_switch,
	  .part = PART_DEVICE,
	  .devices = "pci.accelerators",
	  .what = "Whether every accelerator has a network controller below the same PCIe switch "
	  "(pci.matrix.switch_pairs; skipped without accelerators or NICs).",
	  .why = "GPUDirect RDMA moves data between the NIC and the accelerator without the CPU; "
	  "peer-to-peer traffic that stays inside one switch (nvidia-smi's PIX or PXB) is the fast "
	  "case, while through the host bridge (PHB) or across sockets (NODE, SYS) it is slower or "
	  "unsupported (nodeaudit-checks(7)). ACS redirect on a switch port sends it up to the root "
	  "complex all the same: see pci.matrix.info[].acs.",
	  .fixes = {
		{ .kind = "hardware", .text = "Put each accelerator and its NIC in slots below the same PCIe "
		  "switch (the board manual's slot-to-switch map)" } } },

	{ .id = "pci.nic.link",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.nics[].link.width.current, pci.nics[].link.width.max, pci.nics[].upstream.width_max",
	  .unit = "ratio",
	  .title = "NIC PCIe link width",
	  .observe = obs_nic_link,
	  .part = PART_LINK,
	  .devices = "pci.nics",
	  .metrics = "nodeaudit_pci_link_width nodeaudit_pci_link_width_max",
	  .what = "Lowest negotiated link width over the network controllers, against the narrower of "
	  "what the card and its slot allow.",
	  .why = "Array nodes in the field reports talk over 25/100 GbE or RoCEv2 (nodeaudit-checks(7)); a "
	  "100 GbE NIC on a narrowed link "
	  "cannot reach line rate.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the NIC to a slot wired for its full width" } } },

	{ .id = "pci.nic.roce_ecn",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.nics[].roce_ecn.np, pci.nics[].roce_ecn.rp, pci.nics[].interface",
	  .title = "ECN on for RoCE",
	  .observe = obs_nic_roce_ecn,
	  .part = PART_DEVICE,
	  .devices = "pci.nics",
	  .what = "Whether every RoCE port whose driver has ECN settings (NVIDIA's mlx5 with MLNX_OFED: "
	  "/sys/class/net/IF/ecn/roce_np/enable/0-7 and roce_rp/enable/0-7) has ECN on, at both the "
	  "notification and the reaction point, for at least one priority (skipped where no port has them).",
	  .why = "RoCEv2 congestion control (DCQCN) works by ECN: the switch marks packets, the notification "
	  "point answers with CNPs, the reaction point slows the sender. With ECN off at either end a "
	  "congested fabric falls back on PFC pauses alone, which spread head-of-line blocking to every "
	  "flow of the priority; the deployment guide of a 4096-node agent cluster turns ECN and PFC on "
	  "for its RoCE fabric (nodeaudit-checks(7)). The RoCE traffic's priority needs both ends on; the "
	  "switches must mark ECN on that priority's queue too.",
	  .fixes = {
		{ .kind = "runtime", .text = "Turn ECN on at the notification point, every priority of each RoCE port",
		  .step = "sysfs", .key = "/sys/class/net/*/ecn/roce_np/enable/*", .value = "1" },
		{ .kind = "runtime", .text = "Turn ECN on at the reaction point, every priority of each RoCE port",
		  .step = "sysfs", .key = "/sys/class/net/*/ecn/roce_rp/enable/*", .value = "1" },
		{ .kind = "systemd", .text = "Make it persistent: the driver starts with its defaults when it loads; "
		  "a oneshot unit after the network is up (or the NIC vendor's QoS tool) sets them again" },
		{ .kind = "hardware", .text = "On the switches: ECN marking (WRED/ECN) and PFC on the queue of the "
		  "RoCE priority" } } },

	{ .id = "kernel.sysctl",
	  .type = V_SYSCTL,
	  .keyed = 1,
	  .cmps = NUM,
	  .facts = "kernel.sysctl.\"KEY\"",
	  .title = "sysctl",
	  .observe = obs_sysctl,
	  .part = PART_SETTING,
	  .what = "One finding per sysctl the profile names: the value as the kernel prints it, compared as "
	  "a number (min, max, numeric expect) or as a string (white space normalised).",
	  .why = "From the deployment guide of a 4096-node ARM agent cluster (nodeaudit-checks(7)): "
	  "vm.swappiness=10, net.core.rmem_max and "
	  "wmem_max=67108864, net.ipv4.tcp_fin_timeout=30, net.ipv4.tcp_tw_reuse=1, "
	  "net.ipv4.ip_local_port_range=1024 65535, fs.file-max=2097152, for many short connections "
	  "and large buffers.",
	  .fixes = {
		{ .kind = "sysctl", .command = "sysctl -w {key}='{expected}'", .text = "{key} = {expected} in /etc/sysctl.d/90-nodeaudit.conf", .step = "sysctl", .key = "{key}", .value = "{expected}" } } },

	{ .id = "kernel.thp",
	  .type = V_STR,
	  .cmps = CMP_EXPECT,
	  .values = thp_modes,
	  .facts = "kernel.thp.enabled, kernel.thp.defrag",
	  .title = "Transparent huge pages",
	  .observe = obs_thp,
	  .part = PART_SETTING,
	  .what = "The selected mode of /sys/kernel/mm/transparent_hugepage/enabled.",
	  .why = "Decode streams every weight once per token (nodeaudit-checks(7)), gigabytes per second "
	  "through the "
	  "TLB; 'never' forbids huge pages even for runtimes that ask for them (madvise). The field "
	  "reports give no measured figure for THP, so the built-in profiles only warn.",
	  .fixes = {
		{ .kind = "runtime", .command = "echo {expected} > /sys/kernel/mm/transparent_hugepage/enabled", .step = "thp", .key = "/sys/kernel/mm/transparent_hugepage/enabled", .value = "{expected}" },
		{ .kind = "cmdline", .text = "Add 'transparent_hugepage={expected}' to the kernel command line" } } },

	{ .id = "kernel.swap",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "kernel.swap.total_bytes",
	  .unit = "bytes",
	  .title = "Swap space",
	  .observe = obs_swap,
	  .part = PART_SETTING,
	  .what = "Total swap space, in bytes.",
	  .why = "The 4096-node ARM cluster's deployment guide (nodeaudit-checks(7)) asks for "
	  "vm.swappiness=10 "
	  "and a memory watermark per session rather than the "
	  "OOM killer; weights or sessions paged to swap turn a memory-bandwidth-bound decode into a "
	  "disk-bound one.",
	  .fixes = {
		{ .kind = "runtime", .command = "swapoff -a", .text = "and remove the swap entries from /etc/fstab" } } },

	{ .id = "kernel.hugepages",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "kernel.hugepages.total_bytes, kernel.hugepages.nodes",
	  .unit = "bytes",
	  .title = "Explicit huge pages reserved",
	  .observe = obs_hugepages,
	  .part = PART_SETTING,
	  .what = "Memory reserved in explicit (hugetlbfs) huge pages of every size, in bytes, with a note "
	  "when the reservation differs between NUMA nodes.",
	  .why = "Decode streams every weight once per token (nodeaudit-checks(7)), so weights must stay "
	  "in RAM on the "
	  "worker's node. A runtime that maps them from hugetlbfs needs the pages reserved up front (and on the "
	  "node its worker is pinned to); a reservation nothing uses is memory taken from the page "
	  "cache that holds the model. llama.cpp's default mmap path uses transparent huge pages "
	  "instead (kernel.thp), so no built-in profile asks for explicit ones.",
	  .fixes = {
		{ .kind = "sysctl", .command = "sysctl -w vm.nr_hugepages=N", .text = "vm.nr_hugepages = N in /etc/sysctl.d, N pages of "
		  "the default huge page size (/proc/meminfo's Hugepagesize, kernel.hugepages.sizes: 2 MiB on "
		  "4 KiB-page kernels, 512 MiB on 64 KiB-page arm64 kernels such as Kunpeng's and Grace's); "
		  "per node: /sys/devices/system/node/nodeN/hugepages/hugepages-SIZEkB/nr_hugepages" },
		{ .kind = "cmdline", .text = "Reserve 1 GiB pages at boot: 'default_hugepagesz=1G hugepagesz=1G hugepages=N' "
		  "(4 KiB-page kernels; a 64 KiB-page arm64 kernel has 2 MiB, 512 MiB and 16 GiB pages instead)" } } },

	{ .id = "bench.efficiency",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "bench.efficiency, bench.bandwidth.bytes_per_s, "
	  "bench.peak_bytes_per_s",
	  .unit = "ratio",
	  .title = "Memory bandwidth reached, of the theoretical peak",
	  .observe = obs_bench_efficiency,
	  .part = PART_MEMORY,
	  .metrics = "nodeaudit_bench_bandwidth_bytes_per_second nodeaudit_bench_peak_bytes_per_second nodeaudit_bench_efficiency_ratio",
	  .labels = "bench.membw-mbps memory.bandwidth.theoretical-mbps",
	  .what = "The read bandwidth 'check --bench' measured (all NUMA nodes at once, one pinned thread "
	  "per physical core) divided by the theoretical peak of the populated DIMMs. Skipped when "
	  "the benchmark was not run.",
	  .why = "Decode streams every weight once per token, so tokens/s follows the bandwidth actually "
	  "reached; the CPU field reports measure 25-50% of the theoretical peak "
	  "(nodeaudit-checks(7)). Far below that, "
	  "something the DIMM population does not show is wrong: remote-node memory, a throttled "
	  "memory clock, a noisy neighbour, or a virtual machine.",
	  .fixes = {
		{ .kind = "hardware", .text = "Compare per-node figures (nodeaudit bench --format json): a slow node "
		  "points at its DIMMs, its memory clock or its power/thermal limits" },
		{ .kind = "bios", .text = "Set the power profile to Maximum Performance and the memory frequency to "
		  "the DIMMs' rated speed" } } },

	{ .id = "kernel.cmdline",
	  .type = V_SYSCTL,
	  .keyed = 1,
	  .cmps = CMP_EXPECT,
	  .facts = "kernel.cmdline.params.KEY",
	  .title = "kernel command line",
	  .observe = obs_cmdline,
	  .part = PART_SETTING,
	  .what = "One finding per kernel parameter the profile names: its value ('' for a flag, '(unset)' "
	  "when absent).",
	  .why = "Some settings only exist at boot (nosmt, numa_balancing=disable, transparent_hugepage=, "
	  "isolcpus=), so an audit has to give them as kernel command line changes "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "cmdline", .step = "cmdline", .key = "{key}", .value = "{expected}", .text = "Set {key}={expected} in GRUB_CMDLINE_LINUX (/etc/default/grub), "
		  "regenerate the boot configuration and reboot" } } },
	{ .id = "process.cgroup.cpuset",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "process.cgroup.cpuset_cpus, cpu.core_cpus",
	  .title = "The cgroup's cpuset holds the plan's CPUs",
	  .observe = obs_process_cpuset,
	  .part = PART_SETTING,
	  .what = "Whether the cpuset of this process's cgroup (cpuset.cpus.effective, v1 "
	  "cpuset.effective_cpus) holds the CPUs a plan puts workers on: the first hardware thread of "
	  "every physical core. Run where the workers run (in their container or unit).",
	  .why = "numactl --physcpubind and sched_setaffinity can only narrow the cgroup's cpuset: a "
	  "container started with a narrower --cpuset-cpus, or a slice with AllowedCPUs, makes the "
	  "binding fail or silently drop CPUs, and the workers share what is left (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "systemd", .text = "Widen AllowedCPUs= of the unit or its slice to the plan's CPUs" },
		{ .kind = "runtime", .text = "Start the container with --cpuset-cpus covering the plan's CPUs "
		  "(nodeaudit plan --runtime vllm prints them)" } } },

	{ .id = "process.cgroup.cpu_quota",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "process.cgroup.cpu_quota_cpus, cpu.core_cpus",
	  .title = "No CPU quota below the plan's threads",
	  .observe = obs_process_quota,
	  .part = PART_SETTING,
	  .what = "Whether the cgroup's CPU quota (cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us, the "
	  "tightest up the tree), in CPUs, is at least the plan's threads: one per physical core. "
	  "No quota passes.",
	  .why = "A quota below the worker threads throttles all of them in every period: decode "
	  "stalls for the rest of each 100 ms period once the quota is spent, so tokens/s falls "
	  "and latency jumps although the CPUs are idle (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "systemd", .text = "Remove CPUQuota= from the unit (or raise it to 100% per worker thread)" },
		{ .kind = "runtime", .text = "Drop --cpus / the CPU limit of the container, or raise it to the plan's threads" } } },

	{ .id = "process.limits.memlock",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "process.limits.memlock.soft",
	  .unit = "bytes",
	  .title = "Locked-memory limit (RLIMIT_MEMLOCK)",
	  .observe = obs_process_memlock,
	  .part = PART_SETTING,
	  .what = "The soft RLIMIT_MEMLOCK of this process in bytes (/proc/self/limits); unlimited is "
	  "above any minimum.",
	  .why = "llama.cpp --mlock locks the weights so that they are never paged out; with a limit "
	  "below the model's size it warns and runs unlocked, and under memory pressure decode "
	  "reads the weights from disk. A profile sets the model's size as the minimum; nodeaudit "
	  "plan --model adds --mlock only when the limit covers it (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "systemd", .text = "LimitMEMLOCK=infinity in the worker's unit" },
		{ .kind = "runtime", .text = "'memlock unlimited' in /etc/security/limits.conf, or docker run "
		  "--ulimit memlock=-1" } } },

	{ .id = "process.mempolicy",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "process.mempolicy.get_mempolicy, process.mempolicy.set_mempolicy",
	  .title = "NUMA system calls allowed",
	  .observe = obs_process_numa_calls,
	  .part = PART_SETTING,
	  .what = "Whether get_mempolicy and set_mempolicy succeed in this process (tried live: a "
	  "seccomp filter answers EPERM). Unknown on a sysroot unless its snapshot recorded it.",
	  .why = "numactl --membind, vLLM's CPU backend and llama.cpp --numa bind memory with these "
	  "calls; a container's default seccomp profile refuses them without CAP_SYS_NICE, and "
	  "binding then fails or silently weakens to first touch (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "runtime", .text = "docker run --cap-add SYS_NICE, with a seccomp profile that allows "
		  "get_mempolicy, set_mempolicy, mbind, migrate_pages and move_pages" } } },
};
const size_t ncheck_catalog = ARRAY_SIZE(check_catalog);

/*** Lookup ***/

const struct check *check_find(const char *id)
{
	size_t i;
	for (i = 0; i < ncheck_catalog; i++)
		if (!strcmp(check_catalog[i].id, id))
			return &check_catalog[i];
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, r;
	if (la > 200 || lb > 200)
		return (size_t)-1;
	row = xcalloc(lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	r = row[lb];
	free(row);
	return r;
}

static const char *closest(const char *w, const char *const *words, size_t n, size_t stride)
{
	const char *best = NULL;
	size_t bd = (size_t)-1, i, lim;
	for (i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)words + i * stride);
		size_t d = edit_distance(w, c);
		if (d < bd) {
			bd = d;
			best = c;
		}
	}
	lim = strlen(w) / 3;
	if (lim < 2)
		lim = 2;
	return bd <= lim ? best : NULL;
}

const char *closest_word(const char *w, const char *const *words)
{
	size_t n = 0;
	while (words[n])
		n++;
	return closest(w, words, n, sizeof(*words));
}

const char *check_suggest(const char *id)
{
	return closest(id, &check_catalog[0].id, ncheck_catalog, sizeof(check_catalog[0]));
}

const char *severity_name(enum severity s)
{
	static const char *const n[] = { "info", "warn", "fail" };
	return n[s];
}

const char *status_name(enum status s)
{
	static const char *const n[] = { "pass", "info", "warn", "fail", "unknown", "skip" };
	return s < ST__N ? n[s] : "?";
}
