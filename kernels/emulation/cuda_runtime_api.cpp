// The CUDA runtime functions the backend and its tests call, on the emulated device: the
// declarations are the toolkit's own (cuda_runtime_api.h), the definitions replace libcudart.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "emulation/emulated_device.h"

using pyramid::cuda::emulation::EmulatedDevice;

namespace {

constexpr int kMaxOptInSharedBytes = 227 * 1024;  // an H100's, the architecture emulated

EmulatedDevice& device() { return EmulatedDevice::instance(); }

cudaError_t result(cudaError_t status)
{
    if (status != cudaSuccess)
        device().set_error(status);
    return status;
}

// What copies, fills and event records are, as graph nodes (a kernel is its own address).
constexpr char kCopyNode = 0, kFillNode = 0, kEventRecordNode = 0;

// The calls a capture in progress forbids fail with its error (and break it).
#define PYRAMID_FORBID_DURING_CAPTURE(...)                                                                      \
    if (const cudaError_t forbidden = device().forbid_during_capture(__VA_ARGS__); forbidden != cudaSuccess) \
    return result(forbidden)

struct Event {
    bool done = false;
    std::chrono::steady_clock::time_point at;
};

// Resolves cudaMemcpyDefault and checks that each side is the memory the kind names.
bool valid_copy(void* dst, const void* src, size_t count, cudaMemcpyKind& kind)
{
    const bool dst_device = device().is_device(dst, count), src_device = device().is_device(src, count);
    if (kind == cudaMemcpyDefault)
        kind = src_device ? (dst_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                          : (dst_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    switch (kind) {
    case cudaMemcpyHostToDevice: return dst_device && !device().is_device(src, 1);
    case cudaMemcpyDeviceToHost: return src_device && !device().is_device(dst, 1);
    case cudaMemcpyDeviceToDevice: return dst_device && src_device;
    case cudaMemcpyHostToHost: return !device().is_device(dst, 1) && !device().is_device(src, 1);
    default: return false;
    }
}

} // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int ordinal) { return result(ordinal == 0 ? cudaSuccess : cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int ordinal)
{
    if (ordinal != 0)
        return result(cudaErrorInvalidDevice);
    std::memset(prop, 0, sizeof *prop);
    std::strncpy(prop->name, "CUDA emulation on the CPU", sizeof prop->name - 1);
    prop->totalGlobalMem = device().capacity();
    prop->sharedMemPerBlock = 48 * 1024;
    prop->sharedMemPerBlockOptin = kMaxOptInSharedBytes;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = 132;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total)
{
    *total = device().capacity();
    *free = *total > device().used() ? *total - device().used() : 0;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** data, size_t size)
{
    PYRAMID_FORBID_DURING_CAPTURE(true);
    return result(device().allocate(data, size));
}

cudaError_t cudaFree(void* data)
{
    PYRAMID_FORBID_DURING_CAPTURE();
    return result(device().free(data));
}

cudaError_t cudaHostAlloc(void** data, size_t size, unsigned int)
{
    PYRAMID_FORBID_DURING_CAPTURE(true);
    return result(device().allocate_host(data, size));
}

cudaError_t cudaFreeHost(void* data)
{
    PYRAMID_FORBID_DURING_CAPTURE();
    return result(device().free_host(data));
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind)
{
    if (count == 0)
        return cudaSuccess;
    if (!valid_copy(dst, src, count, kind))
        return result(cudaErrorInvalidValue);
    PYRAMID_FORBID_DURING_CAPTURE();
    device().synchronize();
    device().run_now([=] { std::memcpy(dst, src, count); });
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream)
{
    if (count == 0)
        return cudaSuccess;
    if (!valid_copy(dst, src, count, kind) || !device().is_stream(stream))
        return result(cudaErrorInvalidValue);
    const bool pageable = (kind == cudaMemcpyHostToDevice && !device().is_pinned(src, count)) ||
                          (kind == cudaMemcpyDeviceToHost && !device().is_pinned(dst, count)) ||
                          kind == cudaMemcpyHostToHost;
    // A graph cannot hold a copy of pageable memory.
    if (pageable && device().capture_status(stream) != cudaStreamCaptureStatusNone)
        PYRAMID_FORBID_DURING_CAPTURE();
    // As documented for pageable host memory: a copy from it is staged before the call returns,
    // a copy to it has finished when the call returns; page-locked memory is truly asynchronous.
    if (kind == cudaMemcpyHostToDevice && pageable) {
        const auto* bytes = static_cast<const unsigned char*>(src);
        device().enqueue(stream, [dst, staged = std::vector<unsigned char>(bytes, bytes + count)] {
            std::memcpy(dst, staged.data(), staged.size());
        });
    } else if (pageable) {
        device().synchronize();
        device().run_now([=] { std::memcpy(dst, src, count); });
    } else {
        device().enqueue(stream, [=] { std::memcpy(dst, src, count); }, &kCopyNode);
    }
    return cudaSuccess;
}

cudaError_t cudaMemset(void* data, int value, size_t count)
{
    if (count == 0)
        return cudaSuccess;
    if (!device().is_device(data, count))
        return result(cudaErrorInvalidValue);
    PYRAMID_FORBID_DURING_CAPTURE();
    device().synchronize();
    device().run_now([=] { std::memset(data, value, count); });
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* data, int value, size_t count, cudaStream_t stream)
{
    if (count == 0)
        return cudaSuccess;
    if (!device().is_device(data, count) || !device().is_stream(stream))
        return result(cudaErrorInvalidValue);
    device().enqueue(stream, [=] { std::memset(data, value, count); }, &kFillNode);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream)
{
    *stream = device().create_stream();
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) { return cudaStreamCreate(stream); }

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (stream == nullptr || !device().is_stream(stream))
        return result(cudaErrorInvalidResourceHandle);
    PYRAMID_FORBID_DURING_CAPTURE();
    device().destroy_stream(stream);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (!device().is_stream(stream))
        return result(cudaErrorInvalidResourceHandle);
    PYRAMID_FORBID_DURING_CAPTURE();
    device().synchronize();
    return cudaSuccess;
}

// The emulated threads' stacks are the host's: a stack limit reserves nothing.
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t)
{
    return limit == cudaLimitStackSize ? cudaSuccess : result(cudaErrorUnsupportedLimit);
}

cudaError_t cudaDeviceSynchronize()
{
    PYRAMID_FORBID_DURING_CAPTURE();
    device().synchronize();
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event)
{
    *event = reinterpret_cast<cudaEvent_t>(new Event);
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete reinterpret_cast<Event*>(event);
    return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    if (!device().is_stream(stream))
        return result(cudaErrorInvalidResourceHandle);
    // In a capture, an external event becomes a node that records it each time the graph
    // runs; events joining captured streams (the other kind) are not emulated.
    const bool capturing = device().capture_status(stream) != cudaStreamCaptureStatusNone;
    if (capturing && !(flags & cudaEventRecordExternal))
        PYRAMID_FORBID_DURING_CAPTURE();
    auto* e = reinterpret_cast<Event*>(event);
    if (!capturing)
        e->done = false;
    device().enqueue(
        stream,
        [e] {
            e->done = true;
            e->at = std::chrono::steady_clock::now();
        },
        &kEventRecordNode);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault);
}

cudaError_t cudaEventSynchronize(cudaEvent_t)
{
    PYRAMID_FORBID_DURING_CAPTURE();
    device().synchronize();
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
    const auto* a = reinterpret_cast<const Event*>(start);
    const auto* b = reinterpret_cast<const Event*>(end);
    if (!a->done || !b->done)
        return result(cudaErrorNotReady);
    *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attribute, int value)
{
    if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || value > kMaxOptInSharedBytes)
            return result(cudaErrorInvalidValue);
        device().set_max_dynamic_shared(kernel, value);
    }
    return cudaSuccess;
}

cudaError_t cudaGetLastError() { return device().take_error(); }
cudaError_t cudaPeekAtLastError() { return device().peek_error(); }

const char* cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorGraphExecUpdateFailure: return "cudaErrorGraphExecUpdateFailure";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    default: return "cudaErrorUnknown";
    }
}

const char* cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case cudaErrorGraphExecUpdateFailure: return "the graph update was not performed because it included changes which "
                                                 "violated constraints specific to instantiated graph update";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    default: return "unknown error";
    }
}

} // extern "C"
