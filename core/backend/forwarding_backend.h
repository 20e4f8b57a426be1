#pragma once
// A Backend that hands every call to another one: derive from it to watch or alter one part
// of the interface (time a step, count calls, delay results) while a real backend does the work.
#include "backend/backend.h"

namespace pyramid {

class ForwardingBackend : public Backend {
public:
    explicit ForwardingBackend(Backend& inner) : inner_(inner) {}

    BackendInfo info() const override { return inner_.info(); }
    const ModelConfig& config() const override { return inner_.config(); }
    std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) override { return inner_.embed(tokens); }
    std::unique_ptr<KvLayerStore> new_kv_layer() override { return inner_.new_kv_layer(); }
    size_t kv_entry_bytes() const override { return inner_.kv_entry_bytes(); }
    size_t step_memory_bytes(const StepExtent& extent) const override { return inner_.step_memory_bytes(extent); }
    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override
    {
        inner_.run_layer_batch(layer, hidden, sequences);
    }
    void wait_for_probes(int layer) override { inner_.wait_for_probes(layer); }
    void set_cancel_flag(const std::atomic<bool>* flag) override { inner_.set_cancel_flag(flag); }
    void begin_decode_step() override { inner_.begin_decode_step(); }
    void gather(HiddenStates& hidden, std::span<const int> rows) override { inner_.gather(hidden, rows); }
    void shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts) override
    {
        inner_.shift_key_positions(cache, shifts);
    }
    std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) override
    {
        return inner_.logits_rows(hidden, rows);
    }
    std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k) override
    {
        return inner_.top_logits_rows(hidden, rows, k);
    }
    double copy_bandwidth() override { return inner_.copy_bandwidth(); }
    KvBlockUse kv_blocks() const override { return inner_.kv_blocks(); }
    void release_cached_memory() override { inner_.release_cached_memory(); }

protected:
    Backend& inner_;
};

} // namespace pyramid
