// WorkStream (kernels/work_stream.h), part of test_gpu_kernels: recorded work gives what the
// same work queued gives, step after step, with each step's own arguments, grids and uploaded
// inputs (the executable graph updated in place while the kernels stay the same, instantiated
// anew when they change); waiting for the stream, or the upload ring coming round, launches a
// recording and the rest runs as queued work, every upload intact; a broken recording is an
// error naming it, after which steps run unrecorded; with graphs off nothing is recorded.
#include "work_stream_tests.h"

#include <cmath>
#include <string>

#include "backend/cpu_kernels.h"
#include "cuda_check.h"
#include "elementwise_ops.h"
#include "graph_choice.h"
#include "host_uploads.h"
#include "work_stream.h"

using namespace pyramid;
using namespace pyramid::gpu_test;

namespace {

std::mt19937 rng(20261124);

constexpr int kWidth = 40;
constexpr int kSourceRows = 50;

// A stream of its own (capture needs one that is not the legacy stream), destroyed at the end.
struct OwnStream {
    cudaStream_t stream = nullptr;
    OwnStream() { cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~OwnStream() { cudaStreamDestroy(stream); }
};

std::vector<int32_t> random_rows(int n)
{
    std::uniform_int_distribution<int32_t> row(0, kSourceRows - 1);
    std::vector<int32_t> rows(static_cast<size_t>(n));
    for (int32_t& r : rows)
        r = row(rng);
    return rows;
}

// silu(x) * x per element, as the CPU backend computes it.
std::vector<float> squared_silu(const std::vector<float>& x)
{
    std::vector<float> out = x;
    cpu::swiglu(out.data(), x.data(), static_cast<int64_t>(x.size()));
    return out;
}

// out[t] = silu(src[rows[t]]) * src[rows[t]].
std::vector<float> expected_step(const std::vector<float>& src, const std::vector<int32_t>& rows)
{
    std::vector<float> gathered;
    for (int32_t r : rows)
        gathered.insert(gathered.end(), src.begin() + r * kWidth, src.begin() + (r + 1) * kWidth);
    return squared_silu(gathered);
}

// One "step": its rows uploaded through the ring, gathered, then swiglu'd into `out`.
void queue_step(cuda::WorkStream& work, cuda::HostUploads& uploads, const cuda::DeviceBuffer& src,
                const std::vector<int32_t>& rows, cuda::DeviceBuffer& indices, cuda::DeviceBuffer& gathered,
                cuda::DeviceBuffer& out)
{
    const int n = static_cast<int>(rows.size());
    uploads.upload(indices.data(), rows.data(), rows.size() * sizeof(int32_t), "test rows");
    cuda::gather_rows(src.as<float>(), kWidth, indices.as<int32_t>(), n, gathered.as<float>(), work.get());
    cuda::check_launch("gather_rows");
    cuda::swiglu(gathered.as<float>(), gathered.as<float>(), int64_t(n) * kWidth, out.data(), cuda::Precision::Fp32,
                 work.get());
    cuda::check_launch("swiglu");
}

void recorded_steps_run_like_queued_work()
{
    OwnStream own;
    cuda::WorkStream work(own.stream, true);
    cuda::HostUploads uploads(work);
    const std::vector<float> src_host = random_floats(rng, size_t(kSourceRows) * kWidth, -4.0f, 4.0f);
    const cuda::DeviceBuffer src = upload(src_host);
    cuda::DeviceBuffer indices = poisoned(kSourceRows), gathered = poisoned(size_t(kSourceRows) * kWidth);
    // Outputs alternate between two buffers: an updated graph must write where its step says.
    cuda::DeviceBuffer outs[2] = {poisoned(size_t(kSourceRows) * kWidth), poisoned(size_t(kSourceRows) * kWidth)};
    for (int step = 0; step < 6; ++step) {
        const std::vector<int32_t> rows = random_rows(1 + step * 7);  // another grid each step
        cuda::DeviceBuffer& out = outs[step % 2];
        work.begin_recording();
        GPU_CHECK(work.recording(), "recording step " + std::to_string(step));
        queue_step(work, uploads, src, rows, indices, gathered, out);
        if (step == 5)  // one more kernel: another graph
            cuda::gather_rows(src.as<float>(), kWidth, indices.as<int32_t>(), 1, gathered.as<float>(), work.get());
        work.end_recording();
        GPU_CHECK(!work.recording(), "recording ended");
        work.synchronize("test step");
        check_close("step " + std::to_string(step), download(out.data(), rows.size() * kWidth),
                    expected_step(src_host, rows), 1e-6, 1e-5);
    }
    const cuda::WorkStream::GraphCounts counts = work.graph_counts();
    std::printf("  launched %lld, updated %lld, instantiated %lld\n", counts.launched, counts.updated,
                counts.instantiated);
    GPU_CHECK(counts.launched == 6 && counts.updated == 4 && counts.instantiated == 2,
              "graphs: the first and the one with another kernel instantiated, the rest updated");
}

// Blocks of 256 bytes, 3 of them: the ring comes round within one recording, which must launch
// it first (its copies read the staging blocks when they run); later uploads are queued as usual.
void waits_inside_a_recording_launch_it()
{
    OwnStream own;
    cuda::WorkStream work(own.stream, true);
    cuda::HostUploads uploads(work, 256, 3);
    std::vector<std::vector<float>> sent;
    std::vector<cuda::DeviceBuffer> received;
    std::vector<float> host;
    work.begin_recording();
    for (int i = 0; i < 12; ++i) {
        sent.push_back(random_floats(rng, 30));
        received.emplace_back(sent.back().size() * sizeof(float), "upload test");
        host = sent.back();
        uploads.upload(received.back().data(), host.data(), host.size() * sizeof(float), "upload test");
        std::fill(host.begin(), host.end(), std::nanf(""));
    }
    GPU_CHECK(!work.recording(), "the ring coming round ended the recording");
    GPU_CHECK(work.graph_counts().launched == 1, "the recording was launched");
    for (size_t i = 0; i < sent.size(); ++i)
        check_close("upload " + std::to_string(i), download(received[i].data(), sent[i].size()), sent[i], 0.0, 0.0);

    cuda::DeviceBuffer out = poisoned(kWidth);
    const std::vector<float> in = random_floats(rng, kWidth);
    const cuda::DeviceBuffer device_in = upload(in);
    work.begin_recording();
    cuda::swiglu(device_in.as<float>(), device_in.as<float>(), kWidth, out.data(), cuda::Precision::Fp32, work.get());
    work.synchronize("test");
    GPU_CHECK(!work.recording() && work.graph_counts().launched == 2, "synchronize launched the recording");
    check_close("swiglu recorded, then waited for", download(out.data(), kWidth), squared_silu(in), 1e-6, 1e-5);
}

// A wait on the raw stream while it records is refused by CUDA and breaks the recording: the
// WorkStream says so when it ends, and records nothing after, while work still runs.
void a_broken_recording_is_reported()
{
    OwnStream own;
    cuda::WorkStream work(own.stream, true);
    cuda::DeviceBuffer out = poisoned(kWidth);
    const cuda::DeviceBuffer in = upload(random_floats(rng, kWidth));
    work.begin_recording();
    cuda::swiglu(in.as<float>(), in.as<float>(), kWidth, out.data(), cuda::Precision::Fp32, work.get());
    GPU_CHECK(cudaStreamSynchronize(own.stream) != cudaSuccess, "CUDA refuses to wait for a capturing stream");
    bool reported = false;
    try {
        work.end_recording();
    } catch (const Error& e) {
        reported = std::string(e.what()).find("could not be recorded") != std::string::npos;
        std::printf("  %s\n", e.what());
    }
    GPU_CHECK(reported, "a broken recording is an error naming it");
    GPU_CHECK(cudaGetLastError() == cudaSuccess, "no error left for the next kernel's check");
    GPU_CHECK(!work.graphs(), "graphs are off after a broken recording");
    work.begin_recording();
    GPU_CHECK(!work.recording(), "nothing is recorded any more");
    cuda::swiglu(in.as<float>(), in.as<float>(), kWidth, out.data(), cuda::Precision::Fp32, work.get());
    work.synchronize("test");
    GPU_CHECK(!std::isnan(download(out.data(), kWidth)[0]), "work queued afterwards runs");
}

// The choice between the two ways, fed step times: the faster one by median is kept, per batch
// size, after warm-up and kTrialSteps of each; then tried again after kKeepSteps.
void graph_choice_keeps_the_faster_way()
{
    using Choice = cuda::GraphChoice;
    for (bool graphs_faster : {true, false}) {
        Choice choice;
        int steps = 0;
        while (!choice.decided(4)) {
            GPU_CHECK(steps < Choice::kWarmupSteps + 2 * Choice::kTrialSteps, "decided in time");
            const bool record = choice.record(4);
            // One slow outlier each way must not decide it: medians, not means.
            const double base = record == graphs_faster ? 1.0 : 1.5;
            choice.measured(4, record, steps == Choice::kWarmupSteps + 2 ? 100.0 : base + 0.01 * steps);
            ++steps;
        }
        GPU_CHECK(*choice.decided(4) == graphs_faster && choice.record(4) == graphs_faster, "the faster way is kept");
        GPU_CHECK(!choice.decided(1), "other batch sizes are tried on their own");
        for (int i = 0; i < Choice::kKeepSteps; ++i)
            choice.measured(4, graphs_faster, 1.0);
        GPU_CHECK(!choice.decided(4), "tried again after a while");
    }
}

void graphs_off_record_nothing()
{
    OwnStream own;
    for (cudaStream_t stream : {own.stream, cudaStream_t(nullptr)}) {
        cuda::WorkStream work(stream, stream == nullptr);  // the legacy stream never records
        work.begin_recording();
        GPU_CHECK(!work.recording() && !work.graphs(), "no recording");
        work.end_recording();
        GPU_CHECK(work.graph_counts().launched == 0, "nothing launched");
    }
}

} // namespace

std::vector<TestCase> work_stream_tests()
{
    return {
        {"recorded_steps_run_like_queued_work", recorded_steps_run_like_queued_work},
        {"waits_inside_a_recording_launch_it", waits_inside_a_recording_launch_it},
        {"a_broken_recording_is_reported", a_broken_recording_is_reported},
        {"graphs_off_record_nothing", graphs_off_record_nothing},
        {"graph_choice_keeps_the_faster_way", graph_choice_keeps_the_faster_way},
    };
}
