#pragma once
// A backend step as a named range on the host's timeline, for profilers: Nsight Compute
// profiles only the kernels of "decode step" ranges with --nvtx --nvtx-include "decode step/"
// (scripts/gpu-run.sh staged-profile), Nsight Systems draws them. NVTX v3 from the CUDA toolkit
// is header-only: with no profiler attached, a push or a pop checks one pointer.
#include <nvtx3/nvToolsExt.h>

namespace pyramid::cuda {

// At most one range open: open() closes the previous one first, so a step that failed before
// its close (or that ended without logits, as a prompt's earlier chunks do) leaves none behind.
// Push and pop happen on the engine's thread, as NVTX's push/pop ranges need.
class StepRange {
public:
    StepRange() = default;
    StepRange(const StepRange&) = delete;
    StepRange& operator=(const StepRange&) = delete;
    ~StepRange() { close(); }

    void open(const char* name)
    {
        close();
        nvtxRangePushA(name);
        open_ = true;
    }
    void close()
    {
        if (open_)
            nvtxRangePop();
        open_ = false;
    }

private:
    bool open_ = false;
};

} // namespace pyramid::cuda
