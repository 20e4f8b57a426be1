#include "backend/cpu_cores.h"

#include <algorithm>

#include <omp.h>

#ifdef PYRAMID_HAVE_HWLOC
#include <memory>

#include <hwloc.h>
#include <spdlog/spdlog.h>
#endif

namespace pyramid {
namespace {

// Where the topology is unknown: the CPUs the process is bound to, each counted as a core.
CpuCores every_cpu_a_core()
{
    const int cpus = omp_get_num_procs();
    return {cpus, cpus, cpus};
}

} // namespace

#ifdef PYRAMID_HAVE_HWLOC
namespace {

struct BitmapFree {
    void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

struct TopologyDestroy {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};

// The CPUs of the kind hwloc ranks fastest among those in `bound`; `bound` itself when the
// machine has one kind, or kinds hwloc cannot rank.
Bitmap fastest_kind(hwloc_topology* topology, const hwloc_bitmap_s* bound)
{
    Bitmap fastest(hwloc_bitmap_dup(bound));
    const int kinds = hwloc_cpukinds_get_nr(topology, 0);
    int best = -1;
    Bitmap kind(hwloc_bitmap_alloc());
    for (int k = 0; k < kinds; ++k) {
        int efficiency = -1;
        if (hwloc_cpukinds_get_info(topology, static_cast<unsigned>(k), kind.get(), &efficiency, nullptr, nullptr, 0) != 0 ||
            efficiency < 0)
            return Bitmap(hwloc_bitmap_dup(bound));  // unranked: no kind is known to be faster
        if (efficiency > best && hwloc_bitmap_intersects(kind.get(), bound)) {
            best = efficiency;
            hwloc_bitmap_and(fastest.get(), kind.get(), bound);
        }
    }
    return fastest;
}

} // namespace

CpuCores cpu_cores(hwloc_topology* topology)
{
    Bitmap bound(hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topology)));
    if (hwloc_topology_is_thissystem(topology)) {
        Bitmap binding(hwloc_bitmap_alloc());
        if (hwloc_get_cpubind(topology, binding.get(), HWLOC_CPUBIND_PROCESS) == 0 &&
            hwloc_bitmap_intersects(binding.get(), bound.get()))
            hwloc_bitmap_and(bound.get(), bound.get(), binding.get());
    }
    const Bitmap fastest = fastest_kind(topology, bound.get());
    CpuCores cores;
    cores.logical = std::max(1, hwloc_bitmap_weight(bound.get()));
    int physical = 0, performance = 0;
    for (hwloc_obj_t core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, nullptr); core;
         core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, core)) {
        physical += hwloc_bitmap_intersects(core->cpuset, bound.get());
        performance += hwloc_bitmap_intersects(core->cpuset, fastest.get());
    }
    if (physical == 0)  // no core objects (some virtual machines): a CPU is a core
        physical = performance = cores.logical;
    cores.physical = physical;
    cores.performance = std::max(1, performance);
    return cores;
}

CpuCores cpu_cores()
{
    hwloc_topology* raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) {
        spdlog::warn("hwloc could not start: every CPU counts as a core");
        return every_cpu_a_core();
    }
    const std::unique_ptr<hwloc_topology, TopologyDestroy> topology(raw);
    // Cores and CPUs are all it needs: no caches, memory or devices.
    hwloc_topology_set_all_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(raw, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_type_filter(raw, HWLOC_OBJ_PU, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(raw) != 0) {
        spdlog::warn("hwloc could not read this machine's topology: every CPU counts as a core");
        return every_cpu_a_core();
    }
    return cpu_cores(raw);
}

#else

CpuCores cpu_cores() { return every_cpu_a_core(); }

#endif

} // namespace pyramid
