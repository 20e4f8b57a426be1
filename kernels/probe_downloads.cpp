#include "probe_downloads.h"

#include <algorithm>
#include <utility>

#include "cuda_check.h"

namespace pyramid::cuda {

ProbeDownloads::~ProbeDownloads()
{
    // Copies into the slots may still be queued.
    if (!pending_.empty())
        stream_.settle();
    for (Slot& slot : slots_)
        if (slot.copied)
            cudaEventDestroy(slot.copied);
}

void ProbeDownloads::queue(int layer, const float* device, int entries, std::vector<Piece> pieces)
{
    const size_t index = pending_.size();
    const size_t bytes = static_cast<size_t>(entries) * sizeof(float);
    if (slots_.size() <= index)
        slots_.resize(index + 1);
    Slot& slot = slots_[index];
    // Slots from pending_.size() on have no copy in flight: replacing one is safe. Growing by
    // half again keeps a cache that lengthens step by step from reallocating every step.
    if (slot.scores.bytes() < bytes) {
        stream_.end_recording();  // the old slot is freed: nothing recorded may use it
        slot.scores = PinnedBuffer(std::max(bytes, slot.scores.bytes() * 3 / 2), "probe scores");
    }
    if (!slot.copied)
        check(cudaEventCreateWithFlags(&slot.copied, cudaEventDisableTiming), "probe scores (event)");
    if (bytes > 0)
        check(cudaMemcpyAsync(slot.scores.data(), device, bytes, cudaMemcpyDeviceToHost, stream_.get()),
              "probe scores (download)");
    // In a recording the event must be a node the host can wait for once the graph runs.
    check(stream_.recording() ? cudaEventRecordWithFlags(slot.copied, stream_.get(), cudaEventRecordExternal)
                              : cudaEventRecord(slot.copied, stream_.get()),
          "probe scores (event)");
    pending_.push_back({layer, std::move(pieces)});
}

void ProbeDownloads::deliver(int layer)
{
    size_t last = pending_.size();
    for (size_t i = pending_.size(); i > delivered_; --i)
        if (pending_[i - 1].layer == layer) {
            last = i - 1;
            break;
        }
    if (last == pending_.size())
        return;
    stream_.end_recording();  // the copies must be on their way before anyone waits for them
    // Should the wait fail, the copies stay pending (their slots busy) until drop().
    check(cudaEventSynchronize(slots_[last].copied), "probe scores");
    for (; delivered_ <= last; ++delivered_) {
        const float* scores = slots_[delivered_].scores.as<float>();
        for (const Piece& piece : pending_[delivered_].pieces)
            piece.out->assign(scores + piece.offset, scores + piece.offset + piece.length);
    }
    if (delivered_ == pending_.size()) {
        pending_.clear();
        delivered_ = 0;
    }
}

void ProbeDownloads::drop()
{
    if (pending_.empty())
        return;
    stream_.synchronize("dropping probe scores");
    pending_.clear();
    delivered_ = 0;
}

} // namespace pyramid::cuda
