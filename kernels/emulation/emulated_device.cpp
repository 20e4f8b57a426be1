#include "emulation/emulated_device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "emulation/block_scheduler.h"

namespace pyramid::cuda::emulation {
namespace {

constexpr size_t kAlignment = 256;  // cudaMalloc's
constexpr unsigned char kPoison = 0xff;
constexpr unsigned char kTail = 0xa5;
// Bigger allocations stay untouched zero pages, so a test can fill the device cheaply.
constexpr size_t kMaxPoisonedBytes = size_t(1) << 30;

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The streams' handles: distinct addresses that nothing dereferences.
struct StreamTag {};

template <typename Map>
bool inside(const Map& map, const void* data, size_t bytes, size_t (*extent)(const typename Map::mapped_type&))
{
    const auto* p = static_cast<const unsigned char*>(data);
    auto it = map.upper_bound(p);
    if (it == map.begin())
        return false;
    --it;
    return p >= it->first && p + bytes <= it->first + extent(it->second);
}

} // namespace

EmulatedDevice& EmulatedDevice::instance()
{
    static EmulatedDevice device;
    return device;
}

size_t EmulatedDevice::capacity() const
{
    // MiB, fractions allowed (0.9: a device just smaller than 1 MiB).
    const char* mib = std::getenv("PYRAMID_CUDA_EMULATION_MEMORY_MIB");
    const double value = mib && *mib ? std::strtod(mib, nullptr) : 16384.0;
    return static_cast<size_t>(std::max(value, 0.0) * double(1 << 20));
}

cudaError_t EmulatedDevice::allocate(void** data, size_t bytes)
{
    *data = nullptr;
    if (bytes == 0)
        return cudaSuccess;
    const size_t rounded = round_up(bytes, kAlignment);
    if (used_ + rounded > capacity())
        return cudaErrorMemoryAllocation;
    const size_t mapped = round_up(rounded, page_size()) + page_size();
    void* mapping = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED)
        return cudaErrorMemoryAllocation;
    auto* guard = static_cast<unsigned char*>(mapping) + mapped - page_size();
    unsigned char* start = guard - rounded;  // the allocation ends where the guard page begins
    if (bytes <= kMaxPoisonedBytes)
        std::memset(start, kPoison, bytes);
    std::memset(start + bytes, kTail, rounded - bytes);
    mprotect(guard, page_size(), PROT_NONE);
    device_[start] = Allocation{bytes, rounded, mapping, mapped};
    if (!accessible_)
        mprotect(mapping, mapped - page_size(), PROT_NONE);
    used_ += rounded;
    *data = start;
    return cudaSuccess;
}

cudaError_t EmulatedDevice::free(void* data)
{
    if (!data)
        return cudaSuccess;
    synchronize();  // cudaFree waits for the device
    const auto it = device_.find(static_cast<const unsigned char*>(data));
    if (it == device_.end())
        return cudaErrorInvalidValue;
    munmap(it->second.mapping, it->second.mapped);
    used_ -= it->second.rounded;
    device_.erase(it);
    return cudaSuccess;
}

cudaError_t EmulatedDevice::allocate_host(void** data, size_t bytes)
{
    *data = std::malloc(bytes == 0 ? 1 : bytes);
    if (!*data)
        return cudaErrorMemoryAllocation;
    std::memset(*data, kPoison, bytes);
    pinned_[static_cast<const unsigned char*>(*data)] = bytes;
    return cudaSuccess;
}

cudaError_t EmulatedDevice::free_host(void* data)
{
    if (!data)
        return cudaSuccess;
    synchronize();
    if (pinned_.erase(static_cast<const unsigned char*>(data)) == 0)
        return cudaErrorInvalidValue;
    std::free(data);
    return cudaSuccess;
}

bool EmulatedDevice::is_device(const void* data, size_t bytes) const
{
    return inside(device_, data, bytes, +[](const Allocation& a) { return a.bytes; });
}

void EmulatedDevice::note_prefetch(const void* data, size_t bytes)
{
    prefetches_.bytes += bytes;
    uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
    auto& ranges = prefetches_.ranges;
    // Merge with every range that overlaps or touches [begin, end).
    auto it = ranges.upper_bound(begin);
    if (it != ranges.begin() && std::prev(it)->second >= begin)
        --it;
    while (it != ranges.end() && it->first <= end) {
        begin = std::min(begin, it->first);
        end = std::max(end, it->second);
        it = ranges.erase(it);
    }
    ranges.emplace(begin, end);
}

bool EmulatedDevice::is_pinned(const void* data, size_t bytes) const
{
    return inside(pinned_, data, bytes, +[](const size_t& n) { return n; });
}

cudaStream_t EmulatedDevice::create_stream()
{
    auto stream = reinterpret_cast<cudaStream_t>(new StreamTag);
    streams_.insert(stream);
    return stream;
}

bool EmulatedDevice::is_stream(cudaStream_t stream) const { return stream == nullptr || streams_.count(stream) > 0; }

void EmulatedDevice::destroy_stream(cudaStream_t stream)
{
    synchronize();
    streams_.erase(stream);
    delete reinterpret_cast<StreamTag*>(stream);
}

void EmulatedDevice::enqueue(cudaStream_t stream, std::function<void()> work, const void* kind)
{
    if (!is_stream(stream))
        kernel_fault("work queued on a stream that does not exist (destroyed?)");
    if (Capture* capture = capture_on(stream)) {
        if (!capture->invalidated)
            capture->nodes.push_back({kind, std::move(work)});
        return;
    }
    // The legacy stream would wait for the capturing stream: a GPU refuses that too.
    if (stream == nullptr && !captures_.empty())
        kernel_fault("work queued on the legacy stream while a stream captures a graph");
    queue_.push_back(std::move(work));
}

void EmulatedDevice::synchronize()
{
    if (queue_.empty())
        return;
    std::vector<std::function<void()>> work;
    work.swap(queue_);
    run_now([&] {
        for (const auto& w : work)
            w();
    });
}

void EmulatedDevice::run_now(const std::function<void()>& work)
{
    protect(true);
    work();
    check_tails();
    protect(false);
}

void EmulatedDevice::protect(bool accessible)
{
    accessible_ = accessible;
    for (const auto& [start, a] : device_)
        mprotect(a.mapping, a.mapped - page_size(), accessible ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void EmulatedDevice::check_tails() const
{
    for (const auto& [start, a] : device_)
        for (size_t i = a.bytes; i < a.rounded; ++i)
            if (start[i] != kTail)
                kernel_fault("device code wrote " + std::to_string(i - a.bytes) + " bytes past the end of a " +
                             std::to_string(a.bytes) + "-byte allocation");
}

void EmulatedDevice::set_error(cudaError_t error) { error_ = error; }

cudaError_t EmulatedDevice::take_error()
{
    const cudaError_t e = error_;
    error_ = cudaSuccess;
    return e;
}

size_t EmulatedDevice::max_dynamic_shared(const void* kernel) const
{
    const auto it = max_shared_.find(kernel);
    return it == max_shared_.end() ? 48 * 1024 : static_cast<size_t>(it->second);
}

} // namespace pyramid::cuda::emulation
