#include "probe_downloads.h"

#include <algorithm>
#include <utility>

#include "cuda_check.h"

namespace pyramid::cuda {

void ProbeDownloads::queue(const float* device, int entries, std::vector<Piece> pieces)
{
    const size_t slot = pending_.size();
    const size_t bytes = static_cast<size_t>(entries) * sizeof(float);
    if (slots_.size() <= slot)
        slots_.resize(slot + 1);
    // Slots from pending_.size() on have no copy in flight: replacing one is safe. Growing by
    // half again keeps a cache that lengthens step by step from reallocating every step.
    if (slots_[slot].bytes() < bytes) {
        stream_.end_recording();  // the old slot is freed: nothing recorded may use it
        slots_[slot] = PinnedBuffer(std::max(bytes, slots_[slot].bytes() * 3 / 2), "probe scores");
    }
    if (bytes > 0)
        check(cudaMemcpyAsync(slots_[slot].data(), device, bytes, cudaMemcpyDeviceToHost, stream_.get()),
              "probe scores (download)");
    pending_.push_back({slot, std::move(pieces)});
}

void ProbeDownloads::deliver()
{
    if (pending_.empty())
        return;
    // Synchronize first: should it fail, the copies stay pending (their slots busy) until drop().
    stream_.synchronize("probe scores");
    const std::vector<Pending> pending = std::exchange(pending_, {});
    for (const Pending& p : pending) {
        const float* scores = slots_[p.slot].as<float>();
        for (const Piece& piece : p.pieces)
            piece.out->assign(scores + piece.offset, scores + piece.offset + piece.length);
    }
}

void ProbeDownloads::drop()
{
    if (pending_.empty())
        return;
    stream_.synchronize("dropping probe scores");
    pending_.clear();
}

} // namespace pyramid::cuda
