// WorkStream (kernels/work_stream.h), part of test_gpu_kernels: recorded work gives what the
// same work queued gives, step after step, with each step's own arguments, grids and uploaded
// inputs (the executable graph updated in place while the kernels stay the same, instantiated
// anew when they change); waiting for the stream, or the upload ring coming round, launches a
// recording and the rest runs as queued work, every upload intact; a broken recording is an
// error naming it, after which steps run unrecorded; with graphs off nothing is recorded. A
// slot's graph replayed reads the inputs uploaded since, with nothing recorded again; decode
// layers (DecodeStepGraphs) are replayed exactly while their launch is unchanged, and recorded
// again when it changed, when their last recording was not whole or threw, or after
// forget_layers().
#include "work_stream_tests.h"

#include <cmath>
#include <string>

#include "backend/cpu_kernels.h"
#include "cuda_check.h"
#include "elementwise_ops.h"
#include "decode_step_graphs.h"
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

// A stream that records, the upload ring over it, and source rows on the device.
struct StepFixture {
    OwnStream own;
    cuda::WorkStream work{own.stream, true};
    cuda::HostUploads uploads{work};
    std::vector<float> src_host = random_floats(rng, size_t(kSourceRows) * kWidth, -4.0f, 4.0f);
    cuda::DeviceBuffer src = upload(src_host);
};

// A step's kernels: the rows named at `indices` gathered, then swiglu'd into `out`.
void queue_step_kernels(cuda::WorkStream& work, const cuda::DeviceBuffer& src, const cuda::DeviceBuffer& indices,
                        int n, cuda::DeviceBuffer& gathered, cuda::DeviceBuffer& out)
{
    cuda::gather_rows(src.as<float>(), kWidth, indices.as<int32_t>(), n, gathered.as<float>(), work.get());
    cuda::check_launch("gather_rows");
    cuda::swiglu(gathered.as<float>(), gathered.as<float>(), int64_t(n) * kWidth, out.data(), cuda::Precision::Fp32,
                 work.get());
    cuda::check_launch("swiglu");
}

// One "step": its rows uploaded through the ring, then its kernels.
void queue_step(StepFixture& f, const std::vector<int32_t>& rows, cuda::DeviceBuffer& indices,
                cuda::DeviceBuffer& gathered, cuda::DeviceBuffer& out)
{
    f.uploads.upload(indices.data(), rows.data(), rows.size() * sizeof(int32_t), "test rows");
    queue_step_kernels(f.work, f.src, indices, static_cast<int>(rows.size()), gathered, out);
}

void recorded_steps_run_like_queued_work()
{
    StepFixture f;
    cuda::WorkStream& work = f.work;
    cuda::DeviceBuffer indices = poisoned(kSourceRows), gathered = poisoned(size_t(kSourceRows) * kWidth);
    // Outputs alternate between two buffers: an updated graph must write where its step says.
    cuda::DeviceBuffer outs[2] = {poisoned(size_t(kSourceRows) * kWidth), poisoned(size_t(kSourceRows) * kWidth)};
    for (int step = 0; step < 6; ++step) {
        const std::vector<int32_t> rows = random_rows(1 + step * 7);  // another grid each step
        cuda::DeviceBuffer& out = outs[step % 2];
        work.begin_recording();
        GPU_CHECK(work.recording(), "recording step " + std::to_string(step));
        queue_step(f, rows, indices, gathered, out);
        if (step == 5)  // one more kernel: another graph
            cuda::gather_rows(f.src.as<float>(), kWidth, indices.as<int32_t>(), 1, gathered.as<float>(), work.get());
        work.end_recording();
        GPU_CHECK(!work.recording(), "recording ended");
        work.synchronize("test step");
        check_close("step " + std::to_string(step), download(out.data(), rows.size() * kWidth),
                    expected_step(f.src_host, rows), 1e-6, 1e-5);
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

// A graph recorded into a slot and replayed: each replay gathers the rows uploaded before it
// (outside the graph, as a decode step's lengths and tables are), with nothing recorded again.
void replayed_graphs_read_new_inputs()
{
    StepFixture f;
    cuda::WorkStream& work = f.work;
    constexpr int kRows = 9;
    cuda::DeviceBuffer indices = poisoned(kRows), gathered = poisoned(size_t(kRows) * kWidth);
    cuda::DeviceBuffer out = poisoned(size_t(kRows) * kWidth);
    GPU_CHECK(!work.replay(3), "an empty slot replays nothing");
    for (int step = 0; step < 5; ++step) {
        const std::vector<int32_t> rows = random_rows(kRows);
        f.uploads.upload(indices.data(), rows.data(), rows.size() * sizeof(int32_t), "test rows");
        if (step == 0) {
            work.begin_recording(3);
            queue_step_kernels(work, f.src, indices, kRows, gathered, out);
            GPU_CHECK(!work.replay(3), "no replay while a recording is open");
            work.end_recording();
        } else {
            GPU_CHECK(work.replay(3), "slot 3 replayed, step " + std::to_string(step));
        }
        work.synchronize("test step");
        check_close("replayed step " + std::to_string(step), download(out.data(), size_t(kRows) * kWidth),
                    expected_step(f.src_host, rows), 1e-6, 1e-5);
    }
    const cuda::WorkStream::GraphCounts counts = work.graph_counts();
    GPU_CHECK(counts.launched == 5 && counts.instantiated == 1 && counts.updated == 0 && counts.replayed == 4,
              "one recording, four replays");
    GPU_CHECK(!work.replay(0), "slot 0 holds nothing");
    cuda::WorkStream off(f.own.stream, false);
    GPU_CHECK(!off.replay(0), "no replays with graphs off");
}

// DecodeStepGraphs::run_layer decides, per layer, between replaying and recording, by the launch
// alone. The "layer" is one swiglu of `in` into `out`; its input changes between runs, so a replay
// is seen to read memory, and a recording to be launched.
void layer_graphs_replay_equal_launches()
{
    OwnStream own;
    cuda::WorkStream work(own.stream, true);
    cuda::DecodeStepGraphs graphs(work, cuda::StepGraphs::On);
    std::vector<float> in_host = random_floats(rng, kWidth);
    cuda::DeviceBuffer in = upload(in_host), out = poisoned(kWidth);
    int queued = 0;
    const auto queue_layer = [&] {
        ++queued;
        cuda::swiglu(in.as<float>(), in.as<float>(), kWidth, out.data(), cuda::Precision::Fp32, work.get());
    };
    // Runs one layer in a recorded step; returns whether its work was queued (recorded), not replayed.
    const auto run = [&](const cuda::DecodeLayerLaunch& launch, const std::string& what) {
        in_host = random_floats(rng, kWidth);
        cuda::check(cudaMemcpy(in.data(), in_host.data(), in.bytes(), cudaMemcpyHostToDevice), "test input");
        const int before = queued;
        graphs.announce();
        GPU_CHECK(graphs.step_begins(), what + ": an announced step");
        graphs.record_if_chosen(1);
        graphs.run_layer(launch, queue_layer);
        graphs.step_done();
        work.synchronize("test layer");
        check_close(what, download(out.data(), kWidth), squared_silu(in_host), 1e-6, 1e-5);
        return queued > before;
    };
    float hidden[2];
    cuda::DecodeLayerLaunch launch{2, hidden, cuda::DecodeLayout{1, 300, 512, 3, 0}, 7};
    GPU_CHECK(run(launch, "first"), "the first launch is recorded");
    GPU_CHECK(!run(launch, "the same launch"), "the same launch is replayed");
    cuda::DecodeLayerLaunch longer = launch;
    longer.layout.max_len = 480;
    longer.layout.splits = 4;
    GPU_CHECK(!run(longer, "a longer cache in the same grids"), "lengths reach no argument: replayed");
    longer.layout.grid_len = 1024;
    GPU_CHECK(run(longer, "grids twice as long"), "other grids are recorded");
    GPU_CHECK(!run(longer, "grids twice as long, again"), "and then replayed");
    for (auto change : std::vector<std::pair<std::string, std::function<void(cuda::DecodeLayerLaunch&)>>>{
             {"another layer", [](cuda::DecodeLayerLaunch& l) { l.layer = 3; }},
             {"other hidden rows", [&](cuda::DecodeLayerLaunch& l) { l.hidden = hidden + 1; }},
             {"another batch", [](cuda::DecodeLayerLaunch& l) { l.layout.count = 2; }},
             {"probed", [](cuda::DecodeLayerLaunch& l) { l.layout.scores = 40; }},
             {"a grown workspace", [](cuda::DecodeLayerLaunch& l) { l.workspace_generation = 8; }}}) {
        cuda::DecodeLayerLaunch changed = longer;
        change.second(changed);
        GPU_CHECK(!(changed == longer), change.first + " is another launch");
        GPU_CHECK(run(changed, change.first), change.first + ": recorded");
    }
    graphs.forget_layers();
    GPU_CHECK(run(launch, "after forget_layers"), "forgotten layers are recorded again");

    // A layer whose work waited on the stream (its graph holds part of it) or threw is never
    // replayed: the next equal launch records it again.
    int fresh_layer = 5;
    const auto record_twice = [&](const std::function<void()>& layer, const std::string& what) {
        cuda::DecodeLayerLaunch fresh = launch;
        fresh.layer = fresh_layer++;
        graphs.announce();
        graphs.step_begins();
        graphs.record_if_chosen(1);
        const int before = queued;
        try {
            graphs.run_layer(fresh, layer);
        } catch (const Error& e) {
            GPU_CHECK(std::string(e.what()) == "layer failed", what + ": the layer's own error comes through");
        }
        GPU_CHECK(queued == before + 1, what + ": the layer ran");
        GPU_CHECK(!work.recording(), what + ": no recording stays open");
        GPU_CHECK(run(fresh, what + ", the next step"), what + ": recorded again");
    };
    record_twice([&] { queue_layer(); work.synchronize("inside a layer"); }, "a wait inside");
    record_twice([&] { queue_layer(); throw Error("layer failed"); }, "a layer that threw");

    // A step not announced as a decode step (a prompt) queues its layers.
    graphs.step_begins();
    const int before = queued;
    const long long launched = work.graph_counts().launched;
    graphs.run_layer(launch, queue_layer);
    GPU_CHECK(queued == before + 1 && work.graph_counts().launched == launched, "a prompt's layer is queued");
    work.synchronize("test");
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
        {"replayed_graphs_read_new_inputs", replayed_graphs_read_new_inputs},
        {"layer_graphs_replay_equal_launches", layer_graphs_replay_equal_launches},
        {"graph_choice_keeps_the_faster_way", graph_choice_keeps_the_faster_way},
    };
}
