#!/usr/bin/env python3
# kubelet-validate.py FRAGMENT.yaml REPORT.json - a mirror of the checks the
# kubelet makes on its configuration and its node before it starts, for the
# settings `nodeaudit plan --format kubelet` writes.  Each rule names the
# kubelet's file and function it mirrors (kubernetes/kubernetes, v1.31 to
# v1.35); the node (its NUMA nodes, as cAdvisor lists them from
# /sys/devices/system/node) comes from the check report's facts.  Prints one
# "#   " line per rule broken and exits 1; exits 0 when the kubelet would
# start with the fragment.  Needs python3-yaml.
import json
import re
import sys

import yaml

bad = []


def fail(where, msg):
    bad.append("%s: %s" % (where, msg))


def parse_cpuset(s):
    """k8s.io/utils/cpuset Parse: "0-3,8", ranges ascending."""
    cpus = set()
    if s == "":
        return cpus
    for part in s.split(","):
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part.strip())
        if not m:
            raise ValueError("bad cpuset element %r" % part)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo:
            raise ValueError("range %r is reversed" % part)
        cpus.update(range(lo, hi + 1))
    return cpus


QTY = re.compile(r"^([0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$")
MULT = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
        "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def quantity(q, where):
    """k8s.io/apimachinery/pkg/api/resource ParseQuantity, whole numbers only."""
    m = QTY.match(str(q))
    if not m:
        fail(where, "%r is not a quantity the kubelet parses as whole bytes" % (q,))
        return None
    return int(m.group(1)) * MULT[m.group(2)]


doc = yaml.safe_load(open(sys.argv[1]))
facts = json.load(open(sys.argv[2]))["facts"]
if not isinstance(doc, dict):
    doc = {}
    fail("fragment", "not a YAML mapping")
numa = facts.get("numa") or {}
# cAdvisor's machine topology: every node directory, memory-only nodes too.
node_ids = [n["id"] for n in numa.get("nodes") or [] if isinstance(n.get("id"), int)]

V = "pkg/kubelet/apis/config/validation/validation.go ValidateKubeletConfiguration"
if doc.get("apiVersion") != "kubelet.config.k8s.io/v1beta1" or doc.get("kind") != "KubeletConfiguration":
    fail("pkg/kubelet/apis/config/v1beta1 (scheme)", "apiVersion/kind %r/%r" % (doc.get("apiVersion"), doc.get("kind")))

tm = doc.get("topologyManagerPolicy", "none")
if tm not in ("none", "best-effort", "restricted", "single-numa-node"):
    fail(V, "topologyManagerPolicy %r must be one of none, best-effort, restricted, single-numa-node" % tm)
scope = doc.get("topologyManagerScope", "container")
if scope not in ("container", "pod"):
    fail(V, "topologyManagerScope %r must be container or pod" % scope)
rsc = doc.get("reservedSystemCPUs", "")
reserved = set()
if rsc:
    if doc.get("systemReservedCgroup") or doc.get("kubeReservedCgroup"):
        fail(V, "reservedSystemCPUs with systemReservedCgroup or kubeReservedCgroup")
    try:
        reserved = parse_cpuset(rsc)
    except ValueError as e:
        fail(V, "unable to parse reservedSystemCPUs %r: %s" % (rsc, e))
for val in doc.get("enforceNodeAllocatable") or []:
    if val not in ("pods", "system-reserved", "kube-reserved", "none"):
        fail(V, "enforceNodeAllocatable option %r" % val)

# pkg/kubelet/apis/config/validation/validation_reserved_memory.go
# validateReservedMemoryConfiguration: memory or hugepages-<size> only, never
# zero, one entry per NUMA node and resource.
R = "validation_reserved_memory.go validateReservedMemoryConfiguration"
seen = set()
reserved_memory = doc.get("reservedMemory") or []
for r in reserved_memory:
    node = r.get("numaNode")
    for res, q in (r.get("limits") or {}).items():
        if res != "memory" and not res.startswith("hugepages-"):
            fail(R, "limit type %r for NUMA node %r is not supported" % (res, node))
        if quantity(q, R) == 0:
            fail(R, "reserved memory may not be zero for NUMA node %r and resource %r" % (node, res))
        if (node, res) in seen:
            fail(R, "duplicate value for NUMA node %r and resource %r" % (node, res))
        seen.add((node, res))

# pkg/kubelet/cm/cpumanager/policy_options.go NewStaticPolicyOptions and
# CheckPolicyOptionAvailable: known options, boolean values, and the pairs
# it refuses together.
C = "pkg/kubelet/cm/cpumanager/policy_options.go NewStaticPolicyOptions"
cpol = doc.get("cpuManagerPolicy", "none")
copts = doc.get("cpuManagerPolicyOptions") or {}
if cpol not in ("none", "static"):
    fail("pkg/kubelet/cm/cpumanager/cpu_manager.go NewManager", "unknown policy %r" % cpol)
known = {"full-pcpus-only", "distribute-cpus-across-numa", "align-by-socket", "distribute-cpus-across-cores",
         "strict-cpu-reservation", "prefer-align-cpus-by-uncorecache"}
for k, v in copts.items():
    if k not in known:
        fail(C, "unknown CPU Manager policy option %r" % k)
    if str(v).lower() not in ("true", "false", "1", "0", "t", "f"):
        fail(C, "bad value %r for option %r" % (v, k))
on = {k for k, v in copts.items() if str(v).lower() in ("true", "1", "t")}
for a, b in (("full-pcpus-only", "distribute-cpus-across-cores"),
             ("distribute-cpus-across-cores", "distribute-cpus-across-numa"),
             ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-cores"),
             ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-numa")):
    if a in on and b in on:
        fail(C, "static policy options %s and %s can not be used at the same time" % (a, b))
if copts and cpol != "static":
    fail("pkg/kubelet/cm/cpumanager/cpu_manager.go NewManager", "cpuManagerPolicyOptions without the static policy")
# pkg/kubelet/cm/cpumanager/policy_static.go NewStaticPolicy: a reservation above zero.
if cpol == "static" and not reserved:
    fail("pkg/kubelet/cm/cpumanager/policy_static.go NewStaticPolicy",
         "the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero")

# pkg/kubelet/cm/topologymanager/policy_options.go NewPolicyOptions: known
# options, their values, max-allowable-numa-nodes not below 8 (v1.31+).
T = "pkg/kubelet/cm/topologymanager/policy_options.go NewPolicyOptions"
topts = doc.get("topologyManagerPolicyOptions") or {}
max_nodes = 8
for k, v in topts.items():
    if k == "prefer-closest-numa-nodes":
        if str(v).lower() not in ("true", "false", "1", "0", "t", "f"):
            fail(T, "bad value %r for option %r" % (v, k))
    elif k == "max-allowable-numa-nodes":
        if not re.fullmatch(r"[0-9]+", str(v)):
            fail(T, "bad value %r for option %r" % (v, k))
        elif int(v) < 8:
            fail(T, "the minimum value of %r should not be less than 8" % k)
        else:
            max_nodes = int(v)
    else:
        fail(T, "unknown Topology Manager Policy option %r" % k)
# pkg/kubelet/cm/topologymanager/topology_manager.go NewManager: more NUMA
# nodes than max-allowable-numa-nodes and a policy other than none: the
# kubelet does not start.
if tm != "none" and len(node_ids) > max_nodes:
    fail("pkg/kubelet/cm/topologymanager/topology_manager.go NewManager",
         "unsupported on machines with more than %d NUMA Nodes (%d, policy %s)" % (max_nodes, len(node_ids), tm))
# pkg/kubelet/cm/topologymanager/bitmask/bitmask.go NewBitMask (Add): the
# default affinity and every hint are masks of all the node ids, in 0-63;
# the Topology Manager (policy other than none) and the Memory Manager's
# Static policy (policy_static.go getDefaultHint/calculateHints) build them.
high = [i for i in node_ids if i < 0 or i > 63]
if high and (tm != "none" or doc.get("memoryManagerPolicy") == "Static"):
    fail("pkg/kubelet/cm/topologymanager/bitmask/bitmask.go NewBitMask",
         "bit number must be in range 0-63: NUMA node %d, with topologyManagerPolicy %s and memoryManagerPolicy %s"
         % (max(high), tm, doc.get("memoryManagerPolicy", "None")))
# Bounded hint generation (nodeaudit's rule, from bitmask.IterateBitMasks:
# 2^N - 1 masks): no hint-generating policy above the default 8 nodes.
if len(node_ids) > 8 and (tm != "none" or doc.get("memoryManagerPolicy") == "Static"):
    fail("pkg/kubelet/cm/topologymanager/bitmask/bitmask.go IterateBitMasks",
         "%d NUMA nodes: 2^%d - 1 masks per hint; topologyManagerPolicy %s, memoryManagerPolicy %s"
         % (len(node_ids), len(node_ids), tm, doc.get("memoryManagerPolicy", "None")))

# pkg/kubelet/cm/memorymanager/memory_manager.go NewManager: None or
# Static; for Static, convertReserved (each reservedMemory node is one of the
# machine's: else a nil map is written) and validateReservedMemory (per
# resource, the sum equals kubeReserved + systemReserved + evictionHard).
M = "pkg/kubelet/cm/memorymanager/memory_manager.go"
mpol = doc.get("memoryManagerPolicy", "None")
if mpol not in ("None", "Static"):
    fail(M + " NewManager", "unknown policy %r" % mpol)
if mpol == "Static":
    for r in reserved_memory:
        if r.get("numaNode") not in node_ids:
            fail(M + " convertReserved", "NUMA node %r is not one of the machine's %r" % (r.get("numaNode"), node_ids))
    total = sum(quantity((r.get("limits") or {}).get("memory", 0), M) or 0 for r in reserved_memory)
    alloc = sum(quantity(q, M) or 0 for q in ((doc.get("kubeReserved") or {}).get("memory", 0),
                                               (doc.get("systemReserved") or {}).get("memory", 0),
                                               (doc.get("evictionHard") or {}).get("memory.available", "100Mi")))
    if total != alloc:
        fail(M + " validateReservedMemory",
             "the total amount %d of type memory is not equal to the value %d determined by Node Allocatable feature"
             % (total, alloc))

for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
