#pragma once
// Whether decode steps run faster recorded as CUDA graphs or queued kernel by kernel, measured
// on the steps themselves (CudaBackendOptions::graphs = StepGraphs::Auto).
//
// A layer replayed as a graph costs the host one launch; one recorded anew costs it the
// recording and the graph's update, and keeps the GPU idle until both are done; queued kernels
// run while the host queues the next ones. So graphs win where layers replay or where the host's
// cost per launch exceeds the GPU's time per kernel (small models, small batches), and can lose
// where batches change every step, and which holds depends on model, batch size, cache length
// and machine. Each batch size therefore tries both: after a few warm-up steps, steps
// alternate between the two ways until each has kTrialSteps, then the one of smaller median step
// time is kept, and tried again after kKeepSteps steps (caches grow, and the GPU's share of a
// step with them). Plain C++: the backend times the steps.
#include <map>
#include <optional>
#include <vector>

namespace pyramid::cuda {

class GraphChoice {
public:
    static constexpr int kWarmupSteps = 2;  // a first graph is instantiated, not updated
    static constexpr int kTrialSteps = 5;   // of each way
    static constexpr int kKeepSteps = 512;

    // Whether the next decode step of `batch` sequences should be recorded.
    bool record(int batch);
    // A decode step of `batch` sequences, recorded or not, took `seconds` from its start to its
    // logits on the host.
    void measured(int batch, bool recorded, double seconds);
    // The way kept for `batch`: whether steps are recorded; nothing while both are being tried.
    std::optional<bool> decided(int batch) const;

private:
    struct Trial {
        int steps = 0;  // measured since the trial began
        std::vector<double> recorded, queued;
        std::optional<bool> choice;
        int kept = 0;  // steps since the choice
    };
    std::map<int, Trial> trials_;
};

} // namespace pyramid::cuda
