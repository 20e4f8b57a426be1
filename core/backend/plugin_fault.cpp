#include "backend/plugin_fault.h"

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/kv_block_allocator.h"
#include "util/error.h"

namespace pyramid {
namespace {

void record(PluginFault& fault, PluginFaultKind kind, const char* message)
{
    fault.kind = kind;
    std::snprintf(fault.message, sizeof fault.message, "%s", message);
}

// The library's side: call() as it is, or what it threw recorded and an empty result.
struct Catching {
    template <typename Call>
    static auto run(PluginFault& fault, Call&& call) -> decltype(call())
    {
        try {
            return call();
        } catch (const KvMemoryExhausted& e) {
            record(fault, PluginFaultKind::KvMemoryExhausted, e.what());
        } catch (const Cancelled& e) {
            record(fault, PluginFaultKind::Cancelled, e.what());
        } catch (const std::bad_alloc& e) {
            record(fault, PluginFaultKind::OutOfMemory, e.what());
        } catch (const std::exception& e) {
            record(fault, PluginFaultKind::Error, e.what());
        } catch (...) {
            record(fault, PluginFaultKind::Error, "the backend library failed with an exception of an unknown type");
        }
        if constexpr (!std::is_void_v<decltype(call())>)
            return {};
    }
};

// The engine's side: call(), then what the library recorded thrown as the engine's own type.
struct Raising {
    static void raise(PluginFault& fault)
    {
        if (fault.kind == PluginFaultKind::None)
            return;
        const PluginFaultKind kind = fault.kind;
        const std::string message = fault.message;
        fault = PluginFault{};
        switch (kind) {
        case PluginFaultKind::KvMemoryExhausted: throw KvMemoryExhausted(message);
        case PluginFaultKind::Cancelled: throw Cancelled();
        case PluginFaultKind::OutOfMemory: throw std::bad_alloc();
        default: throw Error(message);
        }
    }

    template <typename Call>
    static auto run(PluginFault& fault, Call&& call) -> decltype(call())
    {
        if constexpr (std::is_void_v<decltype(call())>) {
            call();
            raise(fault);
        } else {
            auto result = call();
            raise(fault);
            return result;
        }
    }
};

// A store of the backend on the other side, each call through Side. Size and bytes are plain
// reads of the store's counts and cannot fail.
template <typename Side>
class BoundaryKvStore final : public KvLayerStore {
public:
    BoundaryKvStore(std::unique_ptr<KvLayerStore> inner, PluginFault& fault) : inner_(std::move(inner)), fault_(fault) {}

    int size() const override { return inner_->size(); }
    void keep(std::span<const int> indices) override { Side::run(fault_, [&] { inner_->keep(indices); }); }
    void keep_per_head(std::span<const std::vector<int>> per_head) override
    {
        Side::run(fault_, [&] { inner_->keep_per_head(per_head); });
    }
    void reserve(int more) override { Side::run(fault_, [&] { inner_->reserve(more); }); }
    void release_unused() override { Side::run(fault_, [&] { inner_->release_unused(); }); }
    size_t bytes() const override { return inner_->bytes(); }

    KvLayerStore& inner() { return *inner_; }

private:
    std::unique_ptr<KvLayerStore> inner_;
    PluginFault& fault_;
};

// The backend on the other side, each call through Side. The stores it is handed are the ones
// its new_kv_layer() wrapped, and go to the inner backend unwrapped.
template <typename Side>
class BoundaryBackend final : public Backend {
public:
    BoundaryBackend(std::unique_ptr<Backend> inner, PluginFault& fault, std::unique_ptr<PluginFault> owned = nullptr)
        : owned_fault_(std::move(owned)), inner_(std::move(inner)), fault_(fault)
    {
    }

    BackendInfo info() const override { return Side::run(fault_, [&] { return inner_->info(); }); }
    const ModelConfig& config() const override { return inner_->config(); }
    std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) override
    {
        return Side::run(fault_, [&] { return inner_->embed(tokens); });
    }
    std::unique_ptr<KvLayerStore> new_kv_layer() override
    {
        return Side::run(fault_, [&]() -> std::unique_ptr<KvLayerStore> {
            return std::make_unique<BoundaryKvStore<Side>>(inner_->new_kv_layer(), fault_);
        });
    }
    size_t kv_entry_bytes() const override { return Side::run(fault_, [&] { return inner_->kv_entry_bytes(); }); }
    size_t step_memory_bytes(const StepExtent& extent) const override
    {
        return Side::run(fault_, [&] { return inner_->step_memory_bytes(extent); });
    }
    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override
    {
        Side::run(fault_, [&] {
            rows_.assign(sequences.begin(), sequences.end());
            for (SequenceRows& s : rows_)
                if (s.cache)  // a missing one is the inner backend's to refuse
                    s.cache = &unwrap(*s.cache);
            inner_->run_layer_batch(layer, hidden, rows_);
        });
    }
    void wait_for_probes(int layer) override { Side::run(fault_, [&] { inner_->wait_for_probes(layer); }); }
    void begin_decode_step() override { Side::run(fault_, [&] { inner_->begin_decode_step(); }); }
    void set_cancel_flag(const std::atomic<bool>* flag) override
    {
        Side::run(fault_, [&] { inner_->set_cancel_flag(flag); });
    }
    void gather(HiddenStates& hidden, std::span<const int> rows) override
    {
        Side::run(fault_, [&] { inner_->gather(hidden, rows); });
    }
    void shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts) override
    {
        Side::run(fault_, [&] { inner_->shift_key_positions(unwrap(cache), shifts); });
    }
    std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) override
    {
        return Side::run(fault_, [&] { return inner_->logits_rows(hidden, rows); });
    }
    std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k) override
    {
        return Side::run(fault_, [&] { return inner_->top_logits_rows(hidden, rows, k); });
    }
    double copy_bandwidth() override { return Side::run(fault_, [&] { return inner_->copy_bandwidth(); }); }
    KvBlockUse kv_blocks() const override { return Side::run(fault_, [&] { return inner_->kv_blocks(); }); }
    void release_cached_memory() override { Side::run(fault_, [&] { inner_->release_cached_memory(); }); }

private:
    static KvLayerStore& unwrap(KvLayerStore& store) { return static_cast<BoundaryKvStore<Side>&>(store).inner(); }

    std::unique_ptr<PluginFault> owned_fault_;  // the engine's side owns it; declared first, freed last
    std::unique_ptr<Backend> inner_;
    PluginFault& fault_;
    std::vector<SequenceRows> rows_;  // run_layer_batch's sequences with the inner stores, reused
};

} // namespace

std::unique_ptr<Backend> fault_catching_backend(std::unique_ptr<Backend> backend, PluginFault* fault)
{
    return std::make_unique<BoundaryBackend<Catching>>(std::move(backend), *fault);
}

std::unique_ptr<Backend> fault_raising_backend(std::unique_ptr<Backend> plugin_backend,
                                               std::unique_ptr<PluginFault> fault)
{
    PluginFault& slot = *fault;
    return std::make_unique<BoundaryBackend<Raising>>(std::move(plugin_backend), slot, std::move(fault));
}

} // namespace pyramid
