// Stream capture and CUDA graphs on the emulated device: a capturing stream records its work
// (kernels with their arguments as launched, copies that read their source when the graph
// runs, as on a GPU); a launched graph queues its nodes in order. cudaGraphExecUpdate takes a
// graph whose nodes are of the same kinds in the same order (kernels the same functions), as
// the GPU's update does for a captured sequence; anything else fails with the GPU's reason.
#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "emulation/emulated_device.h"

using pyramid::cuda::emulation::EmulatedDevice;

namespace {

using Nodes = std::vector<EmulatedDevice::GraphNode>;

struct Graph {
    Nodes nodes;
};
struct GraphExec {
    Nodes nodes;
};

EmulatedDevice& device() { return EmulatedDevice::instance(); }

cudaError_t result(cudaError_t status)
{
    if (status != cudaSuccess)
        device().set_error(status);
    return status;
}

Graph* graph_of(cudaGraph_t g) { return reinterpret_cast<Graph*>(g); }
GraphExec* exec_of(cudaGraphExec_t e) { return reinterpret_cast<GraphExec*>(e); }

} // namespace

namespace pyramid::cuda::emulation {

EmulatedDevice::Capture* EmulatedDevice::capture_on(cudaStream_t stream)
{
    for (Capture& c : captures_)
        if (c.stream == stream)
            return &c;
    return nullptr;
}

cudaError_t EmulatedDevice::begin_capture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    if (stream == nullptr || !is_stream(stream) || capture_on(stream))
        return cudaErrorInvalidValue;
    captures_.push_back({stream, mode, false, {}});
    return cudaSuccess;
}

cudaError_t EmulatedDevice::end_capture(cudaStream_t stream, std::vector<GraphNode>& nodes)
{
    const auto it =
        std::find_if(captures_.begin(), captures_.end(), [&](const Capture& c) { return c.stream == stream; });
    if (it == captures_.end())
        return cudaErrorIllegalState;
    const bool invalidated = it->invalidated;
    nodes = std::move(it->nodes);
    captures_.erase(it);
    if (invalidated)
        nodes.clear();
    return invalidated ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
}

cudaStreamCaptureStatus EmulatedDevice::capture_status(cudaStream_t stream) const
{
    for (const Capture& c : captures_)
        if (c.stream == stream)
            return c.invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    return cudaStreamCaptureStatusNone;
}

cudaError_t EmulatedDevice::forbid_during_capture(bool allocation)
{
    bool forbidden = false;
    for (Capture& c : captures_)
        if (!(allocation && c.mode == cudaStreamCaptureModeRelaxed)) {
            c.invalidated = true;
            c.nodes.clear();
            forbidden = true;
        }
    return forbidden ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

} // namespace pyramid::cuda::emulation

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    return result(device().begin_capture(stream, mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph)
{
    *graph = nullptr;
    Nodes nodes;
    if (const cudaError_t status = device().end_capture(stream, nodes); status != cudaSuccess)
        return result(status);
    *graph = reinterpret_cast<cudaGraph_t>(new Graph{std::move(nodes)});
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status)
{
    if (!device().is_stream(stream))
        return result(cudaErrorInvalidResourceHandle);
    *status = device().capture_status(stream);
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long)
{
    if (!graph)
        return result(cudaErrorInvalidValue);
    *exec = reinterpret_cast<cudaGraphExec_t>(new GraphExec{graph_of(graph)->nodes});
    return cudaSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo* info)
{
    if (!exec || !graph)
        return result(cudaErrorInvalidValue);
    Nodes& to = exec_of(exec)->nodes;
    const Nodes& from = graph_of(graph)->nodes;
    cudaGraphExecUpdateResult outcome = cudaGraphExecUpdateSuccess;
    if (to.size() != from.size())
        outcome = cudaGraphExecUpdateErrorTopologyChanged;
    else
        for (size_t i = 0; i < to.size(); ++i)
            if (to[i].kind != from[i].kind)
                outcome = cudaGraphExecUpdateErrorFunctionChanged;
    if (info)
        *info = {outcome, nullptr, nullptr};
    if (outcome != cudaGraphExecUpdateSuccess)
        return result(cudaErrorGraphExecUpdateFailure);
    to = from;
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    if (!exec || !device().is_stream(stream))
        return result(cudaErrorInvalidValue);
    if (device().capture_status(stream) != cudaStreamCaptureStatusNone)
        return result(device().forbid_during_capture());  // graphs in graphs: not emulated
    for (const EmulatedDevice::GraphNode& node : exec_of(exec)->nodes)
        device().enqueue(stream, node.work);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    delete graph_of(graph);
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    delete exec_of(exec);
    return cudaSuccess;
}

} // extern "C"
