#include "host_uploads.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "cuda_check.h"

namespace pyramid::cuda {
namespace {

// Copies start at this alignment in the staging blocks.
constexpr size_t kAlignment = 64;

} // namespace

HostUploads::HostUploads(WorkStream& stream, size_t block_bytes, int blocks)
    : stream_(stream), block_bytes_(block_bytes), blocks_(static_cast<size_t>(std::max(blocks, 2)))
{
    blocks_.front().memory = PinnedBuffer(block_bytes_, "staging uploads to the GPU");
}

HostUploads::~HostUploads()
{
    // Copies out of the blocks may still be queued.
    stream_.settle();
    for (Block& b : blocks_)
        if (b.left)
            cudaEventDestroy(b.left);
}

void HostUploads::advance()
{
    // The ring comes round to blocks whose copies a recording may hold, unlaunched: launch it
    // first. An event cannot mark a point inside a recording either.
    stream_.end_recording();
    Block& leaving = blocks_[current_];
    if (!leaving.left)
        check(cudaEventCreateWithFlags(&leaving.left, cudaEventDisableTiming), "upload staging (event)");
    check(cudaEventRecord(leaving.left, stream_.get()), "upload staging (event)");
    current_ = (current_ + 1) % blocks_.size();
    used_ = 0;
    if (blocks_[current_].left)
        check(cudaEventSynchronize(blocks_[current_].left), "upload staging (reuse)");
}

void HostUploads::upload(void* device, const void* host, size_t bytes, const char* what)
{
    if (bytes == 0)
        return;
    if (bytes > block_bytes_) {
        stream_.end_recording();  // a graph cannot copy from pageable memory
        check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_.get()), what);
        return;
    }
    size_t offset = (used_ + kAlignment - 1) / kAlignment * kAlignment;
    if (offset + bytes > block_bytes_) {
        advance();
        offset = 0;
    }
    Block& block = blocks_[current_];
    if (!block.memory.data())
        block.memory = PinnedBuffer(block_bytes_, "staging uploads to the GPU");
    std::byte* staged = block.memory.as<std::byte>() + offset;
    std::memcpy(staged, host, bytes);
    check(cudaMemcpyAsync(device, staged, bytes, cudaMemcpyHostToDevice, stream_.get()), what);
    used_ = offset + bytes;
}

size_t HostUploads::bytes() const
{
    size_t total = 0;
    for (const Block& b : blocks_)
        total += b.memory.bytes();
    return total;
}

} // namespace pyramid::cuda
