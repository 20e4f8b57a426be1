#include "work_stream.h"

#include <memory>
#include <string>

#include "cuda_check.h"

namespace pyramid::cuda {
namespace {

struct GraphDeleter {
    void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
};

} // namespace

WorkStream::WorkStream(cudaStream_t stream, bool graphs, bool overlap_launches)
    : stream_(stream), graphs_(graphs && stream != nullptr), overlap_launches_(overlap_launches)
{
}

WorkStream::~WorkStream()
{
    settle();
    for (cudaGraphExec_t exec : execs_)
        if (exec)
            cudaGraphExecDestroy(exec);
}

void WorkStream::synchronize(const char* what)
{
    end_recording();
    check(cudaStreamSynchronize(stream_), what);
}

void WorkStream::settle() noexcept
{
    try {
        end_recording();
    } catch (...) {
        // The recording is gone either way; so is the step that made it.
    }
    cudaStreamSynchronize(stream_);
}

void WorkStream::begin_recording(int slot)
{
    if (!graphs_ || recording_ || slot < 0)
        return;
    // Relaxed: growing buffers (cudaMalloc) mid-step must not break the recording.
    if (cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
        cudaGetLastError();  // not the next kernel's error
        graphs_ = false;     // the step runs as queued work, as every step will
        return;
    }
    recording_ = true;
    slot_ = slot;
}

std::string WorkStream::trial_recording(const std::function<void()>& queue)
{
    if (!graphs_)
        return "graphs are off";
    std::string why;
    begin_recording();
    if (!recording_)
        return "stream capture could not begin";
    try {
        queue();
    } catch (const std::exception& e) {
        why = e.what();
    }
    recording_ = false;
    cudaGraph_t captured = nullptr;
    const cudaError_t status = cudaStreamEndCapture(stream_, &captured);
    const std::unique_ptr<CUgraph_st, GraphDeleter> graph(captured);
    cudaGraphExec_t exec = nullptr;
    if (why.empty() && status != cudaSuccess)
        why = std::string("recording: ") + cudaGetErrorString(status);
    if (why.empty())
        if (const cudaError_t s = cudaGraphInstantiate(&exec, graph.get(), 0); s != cudaSuccess)
            why = std::string("instantiating: ") + cudaGetErrorString(s);
    if (why.empty())
        if (const cudaError_t s = cudaGraphLaunch(exec, stream_); s != cudaSuccess)
            why = std::string("launching: ") + cudaGetErrorString(s);
    if (why.empty())
        if (const cudaError_t s = cudaStreamSynchronize(stream_); s != cudaSuccess)
            why = std::string("running: ") + cudaGetErrorString(s);
    if (exec)
        cudaGraphExecDestroy(exec);
    if (!why.empty()) {
        cudaGetLastError();
        graphs_ = false;
    }
    return why;
}

void WorkStream::end_recording()
{
    if (!recording_)
        return;
    recording_ = false;
    cudaGraph_t captured = nullptr;
    const cudaError_t status = cudaStreamEndCapture(stream_, &captured);
    const std::unique_ptr<CUgraph_st, GraphDeleter> graph(captured);
    if (status != cudaSuccess) {
        cudaGetLastError();
        graphs_ = false;
        throw Error(std::string("the CUDA graph of a decode step could not be recorded (") +
                    cudaGetErrorString(status) + "): the step is lost, and later steps run without CUDA graphs");
    }
    launch(slot_, graph.get());
}

bool WorkStream::replay(int slot)
{
    if (!graphs_ || recording_ || slot < 0 || static_cast<size_t>(slot) >= execs_.size() || !execs_[slot])
        return false;
    check(cudaGraphLaunch(execs_[slot], stream_), "CUDA graph launch (replay)");
    ++counts_.launched;
    ++counts_.replayed;
    return true;
}

void WorkStream::launch(int slot, cudaGraph_t graph)
{
    if (execs_.size() <= static_cast<size_t>(slot))
        execs_.resize(static_cast<size_t>(slot) + 1, nullptr);
    cudaGraphExec_t& held = execs_[static_cast<size_t>(slot)];
    bool updated = false;
    if (held) {
        cudaGraphExecUpdateResultInfo info{};
        updated = cudaGraphExecUpdate(held, graph, &info) == cudaSuccess;
        if (!updated) {
            cudaGetLastError();  // an expected outcome, not the next kernel's error
            cudaGraphExecDestroy(held);
            held = nullptr;
        }
    }
    if (!updated) {
        cudaGraphExec_t exec = nullptr;
        if (const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0); status != cudaSuccess) {
            cudaGetLastError();
            graphs_ = false;
            throw Error(std::string("the CUDA graph of a decode step could not be instantiated (") +
                        cudaGetErrorString(status) + "): the step is lost, and later steps run without CUDA graphs");
        }
        held = exec;
        ++counts_.instantiated;
    } else {
        ++counts_.updated;
    }
    check(cudaGraphLaunch(held, stream_), "CUDA graph launch");
    ++counts_.launched;
}

} // namespace pyramid::cuda
