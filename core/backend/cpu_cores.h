#pragma once
// How many threads the CPU backend runs its kernels on when the user has not said: one per
// physical core of the fastest kind this process may run on, as llama.cpp (and so GPT4All, LM
// Studio and Ollama) counts them. A core's second hardware thread (SMT) shares the core's
// vector units and caches, and an efficiency core (Intel's hybrid processors) is slower than a
// performance core: the kernels split their rows evenly between the threads and wait for the
// slowest at every step, so both would hold every other thread back. OpenMP's own default is
// every logical CPU, these included.
//
// The cores are counted with hwloc (the machine's topology, the CPUs this process is bound to
// and each core's kind); a build without it (PYRAMID_HWLOC=OFF) counts every CPU the process
// may use as a core of one kind.
#ifdef PYRAMID_HAVE_HWLOC
struct hwloc_topology;
#endif

namespace pyramid {

struct CpuCores {
    int logical = 1;      // CPUs this process may run on (hardware threads)
    int physical = 1;     // cores they belong to
    int performance = 1;  // of those, the cores of the fastest kind (all of them on a machine of one kind)
};

// This machine's cores, within the process's CPU binding (taskset, cgroups).
CpuCores cpu_cores();

#ifdef PYRAMID_HAVE_HWLOC
// The cores of a loaded topology, within the CPUs `topology` says this process is bound to
// (all of them for a made-up topology, which binds nothing). Kinds count only when hwloc ranks
// them; a binding to efficiency cores only counts those.
CpuCores cpu_cores(hwloc_topology* topology);
#endif

// The threads to run on without a choice: the performance cores, at least one.
inline int default_cpu_threads(const CpuCores& cores) { return cores.performance > 0 ? cores.performance : 1; }

// `threads`, or without a choice (0) default_cpu_threads of this machine.
inline int cpu_threads_or_default(int threads) { return threads > 0 ? threads : default_cpu_threads(cpu_cores()); }

} // namespace pyramid
