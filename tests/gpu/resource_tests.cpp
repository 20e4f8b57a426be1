// What the CUDA backend asks of the machine, part of test_gpu_model: a device-memory request
// beyond any GPU is reported as an error and the backend goes on; what a batched run allocates
// besides the KV pool stays within the bound planners use (step_memory_bytes), and goes back to
// the device on release_cached_memory; the plugin loads through core's loader and a bad
// PYRAMID_CUDA_PRECISION is reported, not guessed; a model beyond the memory left is refused
// before its upload; the weights' upload reports progress and
// stops when asked; the chat engine lets a model on the GPU go
// before loading the next, and reopens it when the next fails.
#include "resource_tests.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include "backend/backend_environment.h"
#include "backend/backend_loader.h"
#include "backend/cpu_backend.h"
#include "chat/local_chat_engine.h"
#include "backend/step_memory.h"
#include "generate/batch_scheduler.h"
#include "generate/inference_session.h"
#include "device_buffer.h"
#include "device_filler.h"
#include "device_weights.h"
#include "model/model.h"
#include "model/model_loader.h"
#include "model_checks.h"
#include "stories_model.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

void out_of_memory_reports_an_error()
{
    auto& b = gpu(Precision::Fp16);
    bool threw = false;
    try {
        b.reserve_kv_blocks(size_t(1) << 40);
    } catch (const Error& e) {
        threw = true;
        std::printf("  (expected) %s\n", e.what());
        GPU_CHECK(std::string(e.what()).find("out of memory") != std::string::npos, e.what());
    }
    GPU_CHECK(threw, "a KV pool request beyond any device must throw pyramid::Error");
    // The backend carries on.
    const std::vector<int32_t> prompt = golden("full_cache").prompt_tokens;
    InferenceSession session(b, CompressionConfig::full_cache()), reference(reference_cpu(), CompressionConfig::full_cache());
    check_logits("prefill after the failed request", session.prefill(prompt), reference.prefill(prompt),
                 kFp16Tolerance);
}

size_t device_memory_used()
{
    const cuda::DeviceMemory m = cuda::device_memory();
    return m.total - m.free;
}

// Five sequences of the golden prompt's first 9 to 198 tokens, 24 new tokens each, full cache,
// PyramidInfer and H2O (which probes every row), batched, greedy: every sequence's tokens by id.
struct MixedBatch {
    int rows = 0;     // prompt rows
    int longest = 0;  // prompt + new tokens of the longest sequence
    std::map<int, std::vector<int32_t>> tokens;
};

MixedBatch run_mixed_batch(Backend& b)
{
    const ReplayRecord c = golden("reference_defaults");
    BatchScheduler scheduler(b, {5, 0, 8192});
    MixedBatch run;
    constexpr int kNewTokens = 24;
    for (int i = 0; i < 5; ++i) {
        BatchRequest r;
        const size_t length = 9 + static_cast<size_t>(i * 53) % 190;
        r.prompt.assign(c.prompt_tokens.begin(),
                        c.prompt_tokens.begin() + static_cast<ptrdiff_t>(std::min(length, c.prompt_tokens.size())));
        r.max_new_tokens = kNewTokens;
        r.sampling.temperature = 0;  // greedy: a second run must give the same tokens
        r.compression = i % 3 == 0 ? CompressionConfig::full_cache() : c.config;
        if (i % 3 == 2)
            r.compression.policy = CompressionPolicyKind::H2O;  // probes every row
        run.rows += static_cast<int>(r.prompt.size());
        run.longest = std::max(run.longest, static_cast<int>(r.prompt.size()) + kNewTokens);
        scheduler.submit(std::move(r));
    }
    while (!scheduler.idle())
        for (const BatchEvent& e : scheduler.step()) {
            GPU_CHECK(e.reason != FinishReason::Error, e.error);
            if (e.token)
                run.tokens[e.id].push_back(*e.token);
        }
    return run;
}

// A GPU rounds allocations to its 2 MiB pages (about 30 buffers grow), the emulation to 256
// bytes.
size_t allocation_rounding(const Backend& b)
{
    const bool emulated = b.info().device.find("emulation") != std::string::npos;
    return emulated ? 30 * 256 : 30 * (size_t(2) << 20);
}

// What a batched run makes a fresh backend allocate besides its KV pool stays within
// step_memory_bytes for the run's largest step (backend/step_memory.h), the bound planners
// use. Device memory is measured with cudaMemGetInfo. The emulation counts every byte, so
// there the growth must also be at least the step's row buffers (the bound is of the real
// buffers); a GPU may place this model's small buffers in pages it already holds.
void step_memory_bounds_a_batched_run()
{
    cuda::CudaBackend b(weights(), {Precision::Fp16});
    const size_t used_before = device_memory_used(), pool_before = b.kv_pool().bytes_reserved();
    const MixedBatch run = run_mixed_batch(b);

    const size_t grown = device_memory_used() - used_before - (b.kv_pool().bytes_reserved() - pool_before);
    const size_t bound = b.step_memory_bytes(StepExtent{run.rows, 5, run.longest});
    const StepBufferLayout fp16;
    const size_t row_growth = step_row_buffers(run.rows).total() - step_row_buffers(64).total() +
                              chunk_buffers(b.config(), fp16, std::min(run.rows, fp16.chunk_rows)).total() -
                              chunk_buffers(b.config(), fp16, 64).total();
    std::printf("  %d rows, 5 sequences: grew %zu bytes besides the KV pool; bound %zu, row buffers %zu\n", run.rows,
                grown, bound, row_growth);
    GPU_CHECK(grown <= bound + allocation_rounding(b), std::to_string(grown) + " > " + std::to_string(bound));
    if (b.info().device.find("emulation") != std::string::npos)
        GPU_CHECK(grown >= row_growth, std::to_string(grown) + " < " + std::to_string(row_growth));
}

// After a batched run, release_cached_memory gives the device back all the run grew (the KV
// pool's chunks, step buffers, kept hidden states): memory in use returns to what it was after
// loading. The backend then runs the same batch to the same tokens, decode steps recorded as
// graphs again over the new buffers.
void released_memory_goes_back_to_the_device()
{
    cuda::CudaBackendOptions options{Precision::Fp16};
    options.graphs = cuda::StepGraphs::On;
    cuda::CudaBackend b(weights(), options);
    const size_t at_load = device_memory_used();
    const MixedBatch first = run_mixed_batch(b);
    const size_t after_run = device_memory_used();
    b.release_cached_memory();
    const size_t released = device_memory_used();
    std::printf("  in use: %zu bytes at load, %zu after the run, %zu after the release; pool %zu bytes\n", at_load,
                after_run, released, b.kv_pool().bytes_reserved());
    GPU_CHECK(after_run > at_load, "the run grew the backend's memory");
    GPU_CHECK(b.kv_pool().bytes_reserved() == 0, "no KV block is in use, so the pool holds nothing");
    GPU_CHECK(released <= at_load + allocation_rounding(b),
              std::to_string(released) + " bytes in use after the release, " + std::to_string(at_load) + " at load");
    const MixedBatch again = run_mixed_batch(b);
    GPU_CHECK(again.tokens == first.tokens, "the same batch after the release gives the same tokens");

    // A step right after a release may have the positions of the step before it: they go up
    // again, into the new buffers.
    const std::vector<int32_t> full = golden("full_cache").prompt_tokens;
    const std::vector<int32_t> prompt(full.begin(), full.begin() + 5);
    const std::vector<float> before = InferenceSession(b, CompressionConfig::full_cache()).prefill(prompt);
    b.release_cached_memory();
    GPU_CHECK(InferenceSession(b, CompressionConfig::full_cache()).prefill(prompt) == before,
              "a prefill after a release equals the same prefill before it");
}

void plugin_loads_through_the_engine_loader()
{
    const ModelWeights& w = weights();
    setenv("PYRAMID_BACKEND_DIR", PYRAMID_CUDA_PLUGIN_DIR, 0);  // a staged run names its own
    unsetenv("PYRAMID_CUDA_PRECISION");
    const BackendOptions cuda = with_environment(BackendPreference::Cuda);
    const std::vector<int32_t> prompt = golden("full_cache").prompt_tokens;
    {
        BackendChoice choice = choose_backend(w, cuda);
        std::printf("  loaded: %s\n", choice.note.c_str());
        GPU_CHECK(choice.backend->info().name == "cuda", choice.backend->info().name);
        InferenceSession plugin(*choice.backend, CompressionConfig::full_cache());
        InferenceSession direct(gpu(Precision::Fp16), CompressionConfig::full_cache());
        check_logits("plugin vs linked backend", plugin.prefill(prompt), direct.prefill(prompt), 1e-4);
    }
    // The options given reach the library: a device that does not exist is its error, and
    // Auto then runs on the CPU, saying why.
    BackendOptions elsewhere = cuda;
    elsewhere.cuda.device = 1000;
    bool threw = false;
    try {
        choose_backend(w, elsewhere);
    } catch (const Error& e) {
        threw = true;
        GPU_CHECK(std::string(e.what()).find("CUDA device 1000 does not exist") != std::string::npos, e.what());
    }
    GPU_CHECK(threw, "a device that does not exist is reported");
    elsewhere.device = BackendPreference::Auto;
    const BackendChoice fallback = choose_backend(w, elsewhere);
    GPU_CHECK(fallback.backend->info().name == "cpu", "Auto falls back to the CPU: " + fallback.note);
    GPU_CHECK(fallback.note.find("does not exist") != std::string::npos, fallback.note);

    // The environment is read where a program asks (backend_environment.h), and a value it
    // cannot use is an error naming the variable.
    setenv("PYRAMID_CUDA_PRECISION", "fp8", 1);
    threw = false;
    try {
        with_environment(BackendPreference::Cuda);
    } catch (const Error& e) {
        threw = true;
        GPU_CHECK(std::string(e.what()).find("PYRAMID_CUDA_PRECISION: unknown CUDA precision") != std::string::npos,
                  e.what());
    }
    GPU_CHECK(threw, "a bad PYRAMID_CUDA_PRECISION is reported");
    unsetenv("PYRAMID_CUDA_PRECISION");

    // A library built against another interface (another digest of its headers) is refused
    // with both numbers, never called into.
    void* library = dlopen(PYRAMID_CUDA_PLUGIN_DIR "/libpyramid_cuda.so", RTLD_NOW | RTLD_LOCAL);
    GPU_CHECK(library != nullptr, std::string("the plugin opens: ") + (library ? "" : dlerror()));
    if (!library)
        return;
    const auto create = reinterpret_cast<CreateBackendFn>(dlsym(library, kCudaPluginSymbol));
    GPU_CHECK(create != nullptr, "the plugin exports its entry point");
    if (create) {
        std::string error(512, '\0');
        PluginFault fault;
        Backend* other = create(kBackendPluginAbi + 1, &w, &cuda.cuda, nullptr, &fault, error.data(), error.size());
        GPU_CHECK(other == nullptr, "a plugin of another ABI was created");
        delete other;
        GPU_CHECK(error.find("plugin ABI " + std::to_string(kBackendPluginAbi)) != std::string::npos, error);
    }
    dlclose(library);
}

// Weights that do not fit the memory left are refused before anything is uploaded, naming
// the bytes needed and free (the engine's loader then runs the model on the CPU and says why:
// emulated_tools_test); once the memory is back, the same model loads and computes what the
// CPU does. The backend is the linked one: the plugin has a device emulation of its own.
void a_model_beyond_free_memory_is_refused()
{
    const LoadedModel model = load_model_files(require_shared("models/kquants/synthetic-llama-mixed.gguf"));
    const size_t needed = cuda::DeviceWeights::bytes_needed(model.weights, Precision::Fp16);
    // Half the weights' bytes left free; a device hands out 2 MiB pages, so closer is not asked.
    cuda::DeviceBuffer filler = fill_device(needed / 2, size_t(1) << 20, 16);
    const size_t left = cuda::device_memory().free;
    if (!filler.data() || left >= needed)
        throw Skip{"could not leave less than the weights' " + std::to_string(needed) + " bytes free (" +
                   std::to_string(left) + " left)"};

    bool refused = false;
    try {
        cuda::CudaBackend backend(model.weights, {Precision::Fp16});
    } catch (const Error& e) {
        std::printf("  (expected) %s\n", e.what());
        refused = std::string(e.what()).find("weights need " + cuda::format_bytes(needed)) != std::string::npos;
    }
    GPU_CHECK(refused, "a model beyond the free memory is refused, naming what it needs");

    filler = cuda::DeviceBuffer();
    cuda::CudaBackend backend(model.weights, {Precision::Fp16});
    CpuBackend cpu_backend(model.weights);
    std::vector<int32_t> prompt;  // spread over the vocabulary, away from the special tokens
    for (int i = 0; i < 24; ++i)
        prompt.push_back(3 + (i * 7919) % (model.weights.config.n_vocab - 3));
    InferenceSession on_gpu(backend, CompressionConfig::full_cache());
    InferenceSession on_cpu(cpu_backend, CompressionConfig::full_cache());
    check_logits("prefill once the memory is back", on_gpu.prefill(prompt), on_cpu.prefill(prompt), kFp16Tolerance);
}

void upload_reports_progress_and_can_be_stopped()
{
    setenv("PYRAMID_BACKEND_DIR", PYRAMID_CUDA_PLUGIN_DIR, 0);
    const std::string path = require_shared("models/stories260K.gguf").string();
    std::vector<double> seen;
    const BackendOptions cuda = with_environment(BackendPreference::Cuda);
    const auto model = Model::open(path, cuda, [&](double f) { seen.push_back(f); });
    GPU_CHECK(model->backend().info().name == "cuda", model->backend().info().name);
    GPU_CHECK(std::is_sorted(seen.begin(), seen.end()), "progress went backwards");
    const auto uploading = std::count_if(seen.begin(), seen.end(), [](double f) { return f > 0.5; });
    GPU_CHECK(uploading >= 10, "the upload reported " + std::to_string(uploading) + " times, expected one per tensor");
    GPU_CHECK(!seen.empty() && seen.back() == 1.0, "progress did not end at 1");

    // A progress callback that throws stops the upload; its exception comes out of the load.
    bool stopped = false;
    try {
        Model::open(path, cuda, [](double f) {
            if (f > 0.7)
                throw Cancelled();
        });
    } catch (const Cancelled&) {
        stopped = true;
    }
    GPU_CHECK(stopped, "a cancel during the upload did not come out of Model::open as Cancelled");
}

// The KV pool holds whole blocks while a KV budget counts entries: at every step of a batch
// the blocks in use stay within the entries plus step_memory's block slack for the sequences
// running, so a budget of free memory less step memory never overdraws the device.
void kv_blocks_stay_within_entries_and_slack()
{
    cuda::CudaBackend b(weights(), {Precision::Fp16});
    const ReplayRecord c = golden("reference_defaults");
    BatchScheduler scheduler(b, {6, 0, 8192});
    for (int i = 0; i < 6; ++i) {
        BatchRequest r;
        r.prompt.assign(c.prompt_tokens.begin(), c.prompt_tokens.begin() + 5 + i * 31);
        r.max_new_tokens = 20 + 7 * i;
        r.sampling.temperature = 0;
        r.compression = i % 2 == 0 ? CompressionConfig::full_cache() : c.config;
        scheduler.submit(std::move(r));
    }
    size_t worst_slack_used = 0;
    while (!scheduler.idle()) {
        scheduler.step();
        const size_t held = b.kv_pool().blocks_in_use() * b.kv_pool().block_bytes();
        const size_t counted = scheduler.kv_bytes();
        const size_t slack =
            step_memory(b.config(), StepBufferLayout{}, StepExtent{1, scheduler.running(), 0}, b.kv_entry_bytes())
                .kv_block_slack;
        GPU_CHECK(held >= counted && held <= counted + slack,
                  "pool " + std::to_string(held) + " vs entries " + std::to_string(counted) + " + slack " +
                      std::to_string(slack));
        worst_slack_used = std::max(worst_slack_used, held - std::min(held, counted));
    }
    std::printf("  most pool bytes beyond the entries: %zu\n", worst_slack_used);
    GPU_CHECK(worst_slack_used > 0, "the pool never held a partly filled block: the check proves nothing");
}

void switching_models_frees_the_gpu_first()
{
    setenv("PYRAMID_BACKEND_DIR", PYRAMID_CUDA_PLUGIN_DIR, 0);
    const std::string path = require_shared("models/stories260K.gguf").string();
    LocalChatEngine engine(with_environment(BackendPreference::Cuda));
    const std::atomic<bool> never{false};
    const ModelInfo first = engine.load_model(path, {}, never);
    GPU_CHECK(first.backend.rfind("cuda", 0) == 0, "on the GPU: " + first.backend);
    // The memory a panel follows between replies: the device's, with this model in it.
    const std::optional<DeviceMemory> memory = engine.device_memory();
    GPU_CHECK(memory && memory->total > 0 && memory->held > 0 && memory->used >= memory->held &&
                  memory->used <= memory->total,
              "the GPU memory is reported while idle");

    bool held_during_load = false;
    LoadCallbacks watch;
    watch.progress = [&](double) { held_during_load = held_during_load || engine.has_model(); };
    engine.load_model(path, watch, never);
    GPU_CHECK(!held_during_load, "the model on the GPU was still loaded while the next one loaded");

    bool threw = false;
    try {
        engine.load_model(path + ".missing", {}, never);
    } catch (const Error& e) {
        threw = true;
        std::printf("  (expected) %s\n", e.what());
    }
    GPU_CHECK(threw, "loading a missing file must fail");
    GPU_CHECK(engine.has_model() && engine.model_info().path == path, "the previous model is back after a failed load");
    ChatRequest request;
    request.conversation.messages = {{ChatRole::User, "Once upon a time"}};
    request.format = PromptFormat::Raw;
    request.max_new_tokens = 4;
    const ChatResult reply = engine.reply(request, {}, never);
    GPU_CHECK(reply.reason != FinishReason::Error && reply.reason != FinishReason::ContextFull,
              "it answers: " + reply.error);

    // A load cancelled before it starts (queued behind a reply) leaves the model where it is:
    // had it been let go, no_reopen would have kept it from coming back.
    const std::atomic<bool> cancelled{true}, no_reopen{true};
    LoadCallbacks quitting;
    quitting.no_reopen = &no_reopen;
    threw = false;
    try {
        engine.load_model(path, quitting, cancelled);
    } catch (const Cancelled&) {
        threw = true;
    }
    GPU_CHECK(threw && engine.has_model(), "a cancelled load must not touch the open model");

    // Quitting: a failed load does not wait for the previous model to come back.
    threw = false;
    try {
        engine.load_model(path + ".missing", quitting, never);
    } catch (const Error& e) {
        threw = std::string(e.what()).find("could not be reopened: cancelled") != std::string::npos;
        std::printf("  (expected) %s\n", e.what());
    }
    GPU_CHECK(threw && !engine.has_model(), "no_reopen must stop the reopening of the previous model");
}

} // namespace

std::vector<TestCase> resource_tests()
{
    return {
        {"out_of_memory_reports_an_error", out_of_memory_reports_an_error},
        {"step_memory_bounds_a_batched_run", step_memory_bounds_a_batched_run},
        {"released_memory_goes_back_to_the_device", released_memory_goes_back_to_the_device},
        {"plugin_loads_through_the_engine_loader", plugin_loads_through_the_engine_loader},
        {"a_model_beyond_free_memory_is_refused", a_model_beyond_free_memory_is_refused},
        {"upload_reports_progress_and_can_be_stopped", upload_reports_progress_and_can_be_stopped},
        {"kv_blocks_stay_within_entries_and_slack", kv_blocks_stay_within_entries_and_slack},
        {"switching_models_frees_the_gpu_first", switching_models_frees_the_gpu_first},
    };
}
