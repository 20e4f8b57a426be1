#include "cuda_backend.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "attention_ops.h"
#include "backend/kv_entry_layout.h"
#include "cuda_check.h"
#include "cuda_kv_layer_store.h"
#include "dequantize_ops.h"
#include "elementwise_ops.h"
#include "event_timer.h"
#include "kv_ops.h"
#include "projection.h"
#include "top_logits_ops.h"

namespace pyramid::cuda {
namespace {

// A chunk's unused blocks are memory no other buffer can have: small steps keep the waste
// under 64 MiB (a few more cudaMalloc calls as the caches grow).
constexpr size_t kMaxPoolChunkBytes = 64u << 20;

// The context reserves this much local memory for every thread the device can hold at once
// (1 KiB by default: 264 MiB on an H100, memory a small card needs for the cache). Our kernels
// use at most 40 bytes a thread (ptxas -v); the driver grows the reservation at the launch of
// any kernel that needs more (a library's), so this only stops it from starting large.
constexpr size_t kThreadStackBytes = 48;

void validate_shape(const ModelConfig& c)
{
    const bool ok = c.dim > 0 && c.n_layers > 0 && c.n_vocab > 0 && c.ffn_dim > 0 && c.n_heads > 0 &&
                    c.n_kv_heads > 0 && c.n_heads % c.n_kv_heads == 0 && c.head_dim > 0 && c.head_dim % 2 == 0 &&
                    c.head_dim <= kMaxHeadDim && c.context_length > 0;
    if (!ok)
        throw Error("the CUDA backend does not support this model's shape (dim " + std::to_string(c.dim) + ", heads " +
                    std::to_string(c.n_heads) + "/" + std::to_string(c.n_kv_heads) + ", head_dim " +
                    std::to_string(c.head_dim) + ", context " + std::to_string(c.context_length) +
                    "): head_dim must be even and at most " + std::to_string(kMaxHeadDim) +
                    ", and the KV heads must divide the heads");
}

// The options' KV types, or the precision's own type for both; throws pyramid::Error for types
// the kernels are not built for or that the model's heads do not fit.
KvTypes resolve_kv_types(const CudaBackendOptions& o, const ModelConfig& c)
{
    const KvTypes t = o.kv_types.value_or(own_kv_precision(o.precision));
    if (!kv_types_supported(o.precision, t.k, t.v))
        throw Error("the CUDA backend in " + std::string(precision_name(o.precision)) +
                    " stores KV entries in its own precision, q8 or q4, not as " + kv_types_name(t));
    for (KvPrecision type : {t.k, t.v})
        if (!kv_values_fit(type, c.head_dim))
            throw Error(std::string("a ") + kv_precision_name(type) + " KV cache stores heads of a multiple of " +
                        std::to_string(kKvBlockValues) + " values; this model's heads have " +
                        std::to_string(c.head_dim));
    return t;
}

} // namespace

CudaBackend::CudaBackend(const ModelWeights& weights, const CudaBackendOptions& options,
                         const std::function<void(double)>& upload_progress)
    : weights_(weights), options_(options)
{
    const ModelConfig& c = weights.config;
    validate_shape(c);
    options_.kv_types = resolve_kv_types(options, c);
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (options.device < 0 || options.device >= count)
        throw Error("CUDA device " + std::to_string(options.device) + " does not exist (" + std::to_string(count) +
                    " found)");
    use_device();
    check(cudaDeviceSetLimit(cudaLimitStackSize, kThreadStackBytes), "cudaDeviceSetLimit (stack size)");
    cudaDeviceProp props{};
    check(cudaGetDeviceProperties(&props, options.device), "cudaGetDeviceProperties");
    // Quantized KV entries are named where users see the device: "(sm_90, fp16, KV q8)".
    const KvTypes& kv_types = *options_.kv_types;
    const bool quantized_kv = kv_types.k == KvPrecision::Q8 || kv_types.k == KvPrecision::Q4 ||
                              kv_types.v == KvPrecision::Q8 || kv_types.v == KvPrecision::Q4;
    device_name_ = std::string(props.name) + " (sm_" + std::to_string(props.major) + std::to_string(props.minor) +
                   ", " + precision_name(options.precision) +
                   (quantized_kv ? ", KV " + kv_types_name(kv_types) : std::string()) + ")";

    const size_t needed = DeviceWeights::bytes_needed(weights, options.precision);
    const DeviceMemory memory = device_memory();
    if (needed > memory.free)
        throw Error("the model's weights need " + format_bytes(needed) + " of GPU memory (quantized matrices as " +
                    "stored, the rest in " + precision_name(options.precision) + ") but " + props.name + " has " +
                    format_bytes(memory.free) + " free of " + format_bytes(memory.total));

    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    stream_.reset(stream);
    cublasHandle_t handle = nullptr;
    check(cublasCreate(&handle), "cublasCreate");
    cublas_.reset(handle);
    check(cublasSetStream(handle, stream), "cublasSetStream");
    // After cublasSetStream, which goes back to cuBLAS's own pool. A device that cannot spare
    // it leaves cuBLAS with that pool.
    if (const size_t bytes = cublas_workspace_bytes(props.major); bytes <= memory.free / 16) {
        cublas_workspace_ = DeviceBuffer(bytes, "the cuBLAS workspace");
        check(cublasSetWorkspace(handle, cublas_workspace_.data(), bytes), "cublasSetWorkspace");
    }
    // A product recorded into a graph must not allocate: graphs only with a workspace of ours.
    // Overlapped launches need programmatic dependent launch (compute capability 9.0).
    const bool overlap_launches = options.overlap_launches && props.major >= 9;
    work_ = std::make_unique<WorkStream>(stream, options.graphs != StepGraphs::Off && cublas_workspace_.data(),
                                         overlap_launches);
    if (overlap_launches)
        device_name_ += ", launches overlapped";
    step_graphs_ = std::make_unique<DecodeStepGraphs>(*work_, options.graphs);
    // fp32 must stay float32 all the way (no TF32) to agree with the CPU reference.
    check(cublasSetMathMode(handle, options.precision == Precision::Fp32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH),
          "cublasSetMathMode");

    device_weights_ = std::make_unique<DeviceWeights>(weights, options.precision, upload_progress);
    // Weight uploads ran on the legacy stream; the work stream must not overtake them.
    check(cudaDeviceSynchronize(), "weight upload");
    projection_scratch_ = DeviceBuffer(
        projection_scratch_bytes(device_weights_->projected_matrices(), options.precision),
        "the scratch of quantized projections");
    if (options_.chunk_rows <= 0)
        options_.chunk_rows = chunk_rows_for_memory(c, step_layout(), device_memory().free);

    const KvGeometry geometry{c.kv_dim(), options.kv_block_entries, kv_types};
    if (geometry.block_entries <= 0)
        throw Error("KV blocks must hold at least one entry");
    const int table_capacity = (c.context_length + geometry.block_entries - 1) / geometry.block_entries;
    // Growth step: one full-length sequence in every layer, but never more than 64 MiB at once.
    const size_t chunk_blocks = std::clamp<size_t>(static_cast<size_t>(table_capacity) * c.n_layers, 1,
                                                   std::max<size_t>(1, kMaxPoolChunkBytes / geometry.block_bytes()));
    uploads_ = std::make_unique<HostUploads>(*work_);
    const size_t capacity_blocks = options.kv_capacity_bytes / geometry.block_bytes();
    if (options.kv_capacity_bytes != 0 && capacity_blocks == 0)
        throw Error("a KV capacity of " + std::to_string(options.kv_capacity_bytes) + " bytes holds no block of " +
                    std::to_string(geometry.block_bytes()) + " bytes");
    kv_ = std::make_unique<KvMemory>(geometry, chunk_blocks, table_capacity,
                                     kv_compaction_entries(step_layout(), geometry.entry_bytes()), *work_, *uploads_,
                                     capacity_blocks);
    workspace_ = std::make_unique<Workspace>(c, step_layout(), *work_);
    hidden_pool_ = std::make_unique<HiddenBufferPool>(*work_);
    probe_downloads_ = std::make_unique<ProbeDownloads>(*work_);
    try_step_graphs();
}

void CudaBackend::try_step_graphs()
{
    if (!work_->graphs())
        return;
    // What a decode step's layer graphs record, once, before any step depends on it: RMSNorm and
    // a projection of the first layer's (cuBLAS, or the matvec of its type).
    const ModelConfig& c = config();
    const DeviceLayer& w = device_weights_->layer(0);
    Workspace& ws = *workspace_;
    // The trial runs: give it a defined row to normalize (sanitizers flag uninitialized reads).
    check(cudaMemsetAsync(ws.gathered(), 0, static_cast<size_t>(c.dim) * sizeof(float), stream_.get()),
          "graph trial (clear)");
    const std::string why = work_->trial_recording([&] {
        const Int8Rows rounded = int8_rows_for({&w.wq}, 1, scratch());
        rms_norm(ws.gathered(), w.attn_norm, 1, c.dim, c.rms_eps, ws.normed(), options_.precision, work_->kernels(),
                 rounded);
        project(projections(), w.wq, ws.normed(), 1, ws.q(), 0.0f, scratch(), rounded);
    });
    // Said where users see the device, never a silent fallback.
    if (!why.empty())
        device_name_ += ", CUDA graphs off: " + why;
}

CudaBackend::~CudaBackend()
{
    // Buffers are freed below; nothing queued or recorded may still use them.
    cudaSetDevice(options_.device);
    work_->settle();
}

void CudaBackend::use_device() const
{
    // The engine may call from any thread, and the current device is per thread.
    check(cudaSetDevice(options_.device), "cudaSetDevice");
}

StepBufferLayout CudaBackend::step_layout() const
{
    StepBufferLayout layout;
    layout.element_bytes = element_bytes(options_.precision);
    layout.chunk_rows = options_.chunk_rows;
    layout.kv_block_entries = options_.kv_block_entries;
    return layout;
}

size_t CudaBackend::step_memory_bytes(const StepExtent& extent) const
{
    return step_memory(config(), step_layout(), extent, kv_entry_bytes()).total();
}

BackendInfo CudaBackend::info() const
{
    use_device();
    const DeviceMemory m = device_memory();
    return {"cuda", device_name_, pyramid::DeviceMemory{m.total - m.free, m.total, bytes_held()}};
}

size_t CudaBackend::bytes_held() const
{
    return device_weights_->bytes() + projection_scratch_.bytes() + cublas_workspace_.bytes() + workspace_->bytes() +
           kv_->scratch_bytes() + hidden_pool_->bytes() + kv_->pool().bytes_reserved();
}

void CudaBackend::reserve_kv_blocks(size_t blocks)
{
    use_device();
    kv_->pool().reserve(blocks);
}

void CudaBackend::release_cached_memory()
{
    use_device();
    work_->settle();  // a recording open since the last step runs, and nothing queued still reads
    hidden_pool_->drop_kept();
    kv_->release_cached();
    workspace_.reset();  // before its replacement: the peak is the new one alone
    workspace_ = std::make_unique<Workspace>(config(), step_layout(), *work_);
    step_graphs_->forget_layers();  // recorded over the old buffers
}

std::unique_ptr<HiddenStates> CudaBackend::embed(std::span<const int32_t> tokens)
{
    use_device();
    const bool decode_step = step_graphs_->step_begins();  // every step starts here
    step_range_.open(decode_step ? "decode step" : "prompt step");
    step_positions_on_device_ = nullptr;
    probe_downloads_->drop();  // a new step: scores of one that failed are not wanted
    const ModelConfig& c = config();
    for (int32_t t : tokens)
        if (t < 0 || t >= c.n_vocab)
            throw Error("token id " + std::to_string(t) + " is outside the vocabulary (size " +
                        std::to_string(c.n_vocab) + ")");
    const int n = static_cast<int>(tokens.size());
    workspace_->reserve_rows(n);
    auto h = std::make_unique<CudaHiddenStates>(*hidden_pool_, n, c.dim);
    if (decode_step)  // its layers as graphs, or queued
        step_graphs_->record_if_chosen(n);
    uploads_->upload(workspace_->row_indices(), tokens.data(), tokens.size_bytes(), "embed (token ids)");
    const DeviceMatrix& table = device_weights_->token_embedding();
    if (table.quantized)
        dequantize_gathered_rows(*table.quantized, table.data, c.dim, workspace_->row_indices(), n, h->data(),
                                 work_->kernels());
    else
        embed_rows(table.data, table.type, c.dim, workspace_->row_indices(), n, h->data(), work_->kernels());
    return h;
}

std::unique_ptr<KvLayerStore> CudaBackend::new_kv_layer()
{
    return std::make_unique<CudaKvLayerStore>(*kv_);
}

void CudaBackend::wait_for_probes(int layer)
{
    use_device();
    probe_downloads_->deliver(layer);
}

void CudaBackend::begin_decode_step()
{
    use_device();
    step_graphs_->announce();
}

void CudaBackend::gather(HiddenStates& hidden, std::span<const int> rows)
{
    use_device();
    auto& h = device_states(hidden);
    for (size_t t = 0; t < rows.size(); ++t)
        if (rows[t] < 0 || rows[t] >= h.rows() || (t > 0 && rows[t] <= rows[t - 1]))
            throw Error("gather: row " + std::to_string(rows[t]) + " at " + std::to_string(t) +
                        " is out of order or outside the " + std::to_string(h.rows()) + " rows");
    const int n = static_cast<int>(rows.size());
    const int dim = config().dim;
    const KernelStream s = work_->kernels();
    Workspace& ws = *workspace_;
    ws.reserve_rows(h.rows());
    ws.reserve_chunk(std::min(n, ws.chunk_rows()));
    uploads_->upload(ws.row_indices(), rows.data(), rows.size_bytes(), "gather (rows)");
    // A chunk at a time through the chunk's buffer, in order: chunk [t0, t0 + m) writes rows
    // below t0 + m, and every later chunk reads rows at or above that (rows[t] >= t, ascending).
    for (int t0 = 0; t0 < n; t0 += ws.chunk_rows()) {
        const int m = std::min(ws.chunk_rows(), n - t0);
        gather_rows(h.data(), dim, ws.row_indices() + t0, m, ws.gathered(), s);
        check(cudaMemcpyAsync(h.data() + static_cast<size_t>(t0) * dim, ws.gathered(),
                              static_cast<size_t>(m) * dim * sizeof(float), cudaMemcpyDeviceToDevice, s.stream),
              "gather (copy back)");
    }
    h.set_rows(n);
}

void CudaBackend::shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts)
{
    use_device();
    const ModelConfig& c = config();
    auto& kv = static_cast<CudaKvLayerStore&>(cache);
    if (static_cast<int>(shifts.size()) != kv.size())
        throw Error("shift_key_positions: " + std::to_string(shifts.size()) + " shifts for " +
                    std::to_string(kv.size()) + " entries");
    const int32_t* device_shifts = kv_->upload_entry_ints(shifts);
    shift_keys(kv.table(), kv.size(), c.n_kv_heads, c.head_dim, device_shifts, c.rope_theta, c.rope_layout,
               work_->kernels());
}

void CudaBackend::project_logit_rows(const HiddenStates& hidden, std::span<const int> rows)
{
    use_device();
    const ModelConfig& c = config();
    const auto& h = device_states(hidden);
    for (int row : rows)
        if (row < 0 || row >= h.rows())
            throw Error("logits: row " + std::to_string(row) + " of " + std::to_string(h.rows()));
    const int n = static_cast<int>(rows.size());
    const KernelStream s = work_->kernels();
    Workspace& ws = *workspace_;
    ws.reserve_rows(n);
    ws.reserve_chunk(n);
    ws.reserve_logit_rows(n);
    // A chunk of the wanted rows at a time: side by side, the norm, the projection.
    uploads_->upload(ws.row_indices(), rows.data(), rows.size_bytes(), "logits (rows)");
    for (int r0 = 0; r0 < n; r0 += ws.chunk_rows()) {
        const int m = std::min(ws.chunk_rows(), n - r0);
        gather_rows(h.data(), c.dim, ws.row_indices() + r0, m, ws.gathered(), s);
        const Int8Rows normed_int8 = int8_rows_for({&device_weights_->output()}, m, scratch());
        rms_norm(ws.gathered(), device_weights_->output_norm(), m, c.dim, c.rms_eps, ws.normed(), options_.precision,
                 s, normed_int8);
        project(projections(), device_weights_->output(), ws.normed(), m,
                ws.logits() + static_cast<size_t>(r0) * c.n_vocab, 0.0f, scratch(), normed_int8);
    }
}

std::vector<float> CudaBackend::logits_rows(const HiddenStates& hidden, std::span<const int> rows)
{
    project_logit_rows(hidden, rows);
    cudaStream_t s = stream_.get();
    std::vector<float> out(rows.size() * static_cast<size_t>(config().n_vocab));
    check(cudaMemcpyAsync(out.data(), workspace_->logits(), out.size() * sizeof(float), cudaMemcpyDeviceToHost, s),
          "logits (download)");
    work_->synchronize("logits");
    step_graphs_->step_done();
    step_range_.close();
    return out;
}

std::vector<TopLogits> CudaBackend::top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k)
{
    if (k > kMaxTopLogits)
        return Backend::top_logits_rows(hidden, rows, k);
    const int n_vocab = config().n_vocab;
    const size_t keep = static_cast<size_t>(std::clamp(k, 0, n_vocab));  // all of a row shorter than k
    project_logit_rows(hidden, rows);
    const size_t entries = rows.size() * keep;
    workspace_->reserve_top_logits(entries);
    int32_t* device = workspace_->top_logits();
    const KernelStream s = work_->kernels();
    std::vector<int32_t> host(2 * entries);  // the ids, then the bits of their values
    if (entries > 0)
        top_logits(workspace_->logits(), static_cast<int>(rows.size()), n_vocab, static_cast<int>(keep), device,
                   reinterpret_cast<float*>(device + entries), s);
    if (entries > 0)
        check(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(int32_t), cudaMemcpyDeviceToHost, s.stream),
              "top logits (download)");
    work_->synchronize("top logits");
    step_graphs_->step_done();
    step_range_.close();
    std::vector<TopLogits> top(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
        top[r].ids.assign(host.begin() + r * keep, host.begin() + (r + 1) * keep);
        top[r].values.resize(keep);
        std::memcpy(top[r].values.data(), host.data() + entries + r * keep, keep * sizeof(float));
    }
    return top;
}

double CudaBackend::copy_bandwidth()
{
    use_device();
    work_->synchronize("copy bandwidth");  // its events cannot mark a point inside a recording
    return device_copy_bandwidth(stream_.get());
}

} // namespace pyramid::cuda
