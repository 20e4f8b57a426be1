// Batched decode attention (decode_attention.h) and the batched store of a decode step's new
// entries (store_kv_decode, kv_ops.h), part of test_gpu_kernels. A batch holds sequences with
// caches of their own (own pool, own block table) of ragged lengths: a lone entry, an odd
// length, exactly one split (kMinDecodeSplitEntries, decode_splits.h), one entry past it, more
// than four splits, and a cache long enough for longer splits. Their rows sit in shuffled order
// among more rows of q than the batch has, some are probed and some not (every fourth batch
// none, with no probe buffer), KV blocks hold 16, 24 or 5 entries (block boundaries on and
// inside split boundaries), grouped-query ratios run from 1 to 16, and every output, scratch
// and new cache entry starts as NaN, so whatever a kernel misses, or writes into another's
// place, shows up.
//
// - decode_attention_matches_reference: each sequence against cpu::attention with n = 1 over
//   its stored keys and values (the new entry included, as stored), its softmax statistics
//   against double-precision sums over the same stored keys, and its cache against what was
//   passed to store_kv_decode (bit for bit).
// - decode_attention_equals_single_row_attention: against attention() + attention_probe() run
//   one sequence at a time over the same caches.
// - decode_attention_over_quantized_entries: both checks above with keys and values in q8 or
//   q4 (each, or both) on the shapes whose heads are whole 32-value blocks: store_kv_decode
//   quantizes exactly as the CPU's store_values (the decoded entries compared bit for bit), and
//   the reference reads the same decoded entries, so the tolerances are those of fp32/fp16
//   entries: a quantized cache changes what is attended to, not how exactly.
// - decode_result_does_not_depend_on_batch: a sequence alone and inside a batch of 5 others
//   gives the same bytes (output, statistics, probe): splits follow its own length only.
// - decode_attention_empty_batch: no sequences is no work and no error.
// - decode_layout_refuses_overflow: offsets past what an int indexes are refused on the host.
// - decode_grids_cover_any_length: grids for four times the longest cache give the same bytes;
//   shorter ones are refused.
//
// Tolerances. Outputs are averages of values in [-1, 1]; scaled scores are O(1).
// - Outputs against the CPU: fp32 1e-5 absolute + 1e-4 relative (summation order only, as in
//   attention_and_probe_match); fp16 one half step (2^-11) absolute + 1e-4 relative, since the
//   reference reads the same fp16-rounded entries and what remains is the output's rounding.
// - Probes: 1e-5 of the largest expected value absolute + 1e-4 relative.
// - Statistics against double: the largest scaled score within 1e-5 absolute + 1e-5 relative
//   (a float dot product of up to 256 terms), the sum of exponentials (>= 1) within 1e-5
//   absolute + 2e-5 relative (each term carries the rounding of two scores).
// - Decode against the single-row kernels (float32 on the GPU both, summed in other orders):
//   outputs fp32 1e-5 absolute + 1e-5 relative, fp16 one half step (the two float results may
//   round to neighbouring halves); statistics and probes as against the reference.
// - Alone against in a batch: bit for bit.
#include "decode_attention_tests.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <numeric>
#include <string>

#include "backend/cpu_kernels.h"
#include "decode_attention.h"
#include "filled_store.h"
#include "gpu_test.h"
#include "kv_ops.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

std::mt19937 rng(20261123);
constexpr int kBlockEntries = 16;
constexpr int kSpareRows = 2;  // rows of q that belong to no sequence of the batch

struct Shape {
    int heads, kv_heads, hd;
    int q_width() const { return heads * hd; }
    int kv_dim() const { return kv_heads * hd; }
};

// Grouped-query ratios 2, 4, 1, 8, 3, 16, 1, 12 (a second, partly filled chunk of 8 query
// heads), 2; head dimensions from 6 to 256, some leaving lanes of their last pair group idle.
constexpr Shape kShapes[] = {{8, 4, 8},   {4, 1, 64},  {8, 8, 128}, {8, 1, 40}, {6, 2, 256},
                             {16, 1, 32}, {2, 2, 6},   {12, 1, 66}, {4, 2, 192}};
// KV block sizes: 16 divides a split, 24 and 5 put block boundaries inside splits.
constexpr int kBlockEntryChoices[] = {16, 24, 5};

// Ragged lengths: a lone entry, odd, exactly one split, one past it, 10 splits, 22 splits,
// and past kMaxDecodeSplits splits of the shortest size (17 splits of twice that).
const std::vector<int> kLengths = {1,   17,  kMinDecodeSplitEntries, kMinDecodeSplitEntries + 1,
                                   300, 700, kMaxDecodeSplits * kMinDecodeSplitEntries + 1};
static_assert(kMinDecodeSplitEntries * 4 < 700, "one sequence must span more than four splits");

std::string describe(const Shape& s, Precision p)
{
    return " heads=" + std::to_string(s.heads) + "/" + std::to_string(s.kv_heads) + " hd=" + std::to_string(s.hd) +
           " [" + cuda::precision_name(p) + "]";
}

// A different mix of probed and unprobed sequences for each variant; every fourth variant
// probes none (the usual decode step of the full-cache and local policies).
std::vector<bool> probe_pattern(size_t count, int variant)
{
    std::vector<bool> probed;
    for (size_t s = 0; s < count; ++s)
        probed.push_back(variant % 4 != 3 && (int(s) + variant) % 3 != 0);
    return probed;
}

std::vector<float> slice(const std::vector<float>& v, size_t first, size_t count)
{
    return std::vector<float>(v.begin() + ptrdiff_t(first), v.begin() + ptrdiff_t(first + count));
}

// How many of v[first, first + count) are not NaN, i.e. were written.
size_t written(const std::vector<float>& v, size_t first, size_t count)
{
    return size_t(std::count_if(v.begin() + ptrdiff_t(first), v.begin() + ptrdiff_t(first + count),
                                [](float x) { return !std::isnan(x); }));
}

// The sequences of one decode step. Sequence s has lens[s] cache entries, the last one its
// new row's: its query is row row[s] of q, its key and value row row[s] of k and v. The caches
// hold the first lens[s] - 1 entries; the last is reserved and NaN until store_kv_decode
// writes it.
struct DecodeInputs {
    Shape shape;
    Precision p;
    int block_entries;
    std::vector<int> lens;
    std::vector<bool> probed;
    int rows;
    std::vector<int> row;
    std::vector<float> weights;  // each sequence's probe weight
    std::vector<float> q, k, v;  // float32 [rows, q_width] and [rows, kv_dim]
    cuda::DeviceBuffer dq, dk, dv;
    std::deque<FilledStore> caches;    // a deque, so stores never move
    std::vector<void* const*> blocks;  // each cache's device block table
    KvTypes types;                     // what the caches store
    cuda::KvBlockFormat format;        // every cache's

    DecodeInputs(const Shape& s, Precision precision, std::vector<int> lengths, std::vector<bool> probed_sequences,
                 int entries_per_block = kBlockEntries, std::optional<KvTypes> stored_types = {})
        : shape(s), p(precision), block_entries(entries_per_block), lens(std::move(lengths)),
          probed(std::move(probed_sequences)),
          rows(int(lens.size()) + kSpareRows), types(stored_types.value_or(own_kv_types(precision))),
          format(cuda::KvGeometry{s.kv_dim(), entries_per_block, types}.format())
    {
        const size_t count = lens.size();
        // Shuffled until no sequence's row is its index.
        row.resize(size_t(rows));
        std::iota(row.begin(), row.end(), 0);
        const auto fixed_point = [&] {
            for (size_t i = 0; i < count; ++i)
                if (row[i] == int(i))
                    return true;
            return false;
        };
        do
            std::shuffle(row.begin(), row.end(), rng);
        while (fixed_point());
        row.resize(count);

        weights = random_floats(rng, count, 0.1f, 2.0f);
        q = random_floats(rng, size_t(rows) * s.q_width(), -2.0f, 2.0f);
        k = random_floats(rng, size_t(rows) * s.kv_dim());
        v = random_floats(rng, size_t(rows) * s.kv_dim());
        dq = upload(q);
        dk = upload(k);
        dv = upload(v);
        // q8 and q4 entries cannot hold NaN: large values stand for it there.
        const auto poison_row = [&](KvPrecision type) {
            return type == KvPrecision::Q8 || type == KvPrecision::Q4
                       ? upload(std::vector<float>(size_t(s.kv_dim()), 1e4f))
                       : poisoned(size_t(s.kv_dim()));
        };
        const cuda::DeviceBuffer key_poison = poison_row(types.k), value_poison = poison_row(types.v);
        for (int len : lens) {
            FilledStore& c = caches.emplace_back(rng, s.kv_dim(), p, len - 1, block_entries, types);
            c.store.reserve_append(1);
            cuda::store_kv(key_poison.as<float>(), value_poison.as<float>(), 1, len - 1, c.store.table(), nullptr);
            c.store.commit_append(1);
            blocks.push_back(c.store.table().blocks);
        }
        gpu_test::sync();
    }

    std::vector<float> q_row(int s) const { return slice(q, size_t(row[size_t(s)]) * shape.q_width(), shape.q_width()); }

    // Sequence s's cache as it must be after store_kv_decode: the filled entries (`filled`),
    // then its row of `batch_rows` (k or v) as stored in `type`.
    std::vector<float> expected_entries(const std::vector<float>& filled, const std::vector<float>& batch_rows, int s,
                                        KvPrecision type) const
    {
        std::vector<float> out = filled;
        const auto new_row =
            as_stored(slice(batch_rows, size_t(row[size_t(s)]) * shape.kv_dim(), shape.kv_dim()), type);
        out.insert(out.end(), new_row.begin(), new_row.end());
        return out;
    }
};

// One decode step over some of the inputs' sequences, its results still on the device.
struct DecodeRun {
    std::vector<cuda::DecodeSequence> sequences;  // as laid out, in batch order
    size_t probe_floats = 0;                      // the members' lengths, probed or not
    cuda::DeviceBuffer out;                       // [rows, q_width] in the precision
    cuda::DeviceBuffer stats;                     // [rows, heads, 2]
    cuda::DeviceBuffer probe;                     // [probe_floats]
};

// Stores the new entries of `members` (indices of the inputs' sequences, in batch order) in
// one store_kv_decode, then runs decode_attention on them. Every sequence gets a probe slice;
// only the probed ones may write theirs. grid_len > 0 launches the grids for that cache length
// instead of the layout's own.
DecodeRun run_decode(const DecodeInputs& in, const std::vector<int>& members, int grid_len = 0)
{
    const Shape& shape = in.shape;
    DecodeRun run;
    for (int s : members) {
        cuda::DecodeSequence d;
        d.blocks = in.blocks[size_t(s)];
        d.len = in.lens[size_t(s)];
        d.row = in.row[size_t(s)];
        d.score_base = in.probed[size_t(s)] ? 0 : -1;
        d.probe_base = int(run.probe_floats);
        d.probe_weight = in.weights[size_t(s)];
        run.probe_floats += size_t(d.len);
        run.sequences.push_back(d);
    }
    cuda::DecodeLayout layout = cuda::lay_out_decode_batch(run.sequences, shape.heads);
    if (grid_len > 0)
        layout.grid_len = grid_len;
    const cuda::DeviceBuffer sequences = upload_raw(run.sequences);
    cuda::store_kv_decode(in.dk.as<float>(), in.dv.as<float>(), sequences.as<cuda::DecodeSequence>(), layout.count,
                          in.format, nullptr);

    run.out = poisoned(size_t(in.rows) * shape.q_width(), in.p);
    run.stats = poisoned(size_t(in.rows) * shape.heads * 2);
    run.probe = poisoned(run.probe_floats);
    const cuda::DeviceBuffer partial_stats = poisoned(size_t(layout.splits) * shape.heads * 2);
    const cuda::DeviceBuffer partial_out = poisoned(size_t(layout.splits) * shape.heads * shape.hd);
    const cuda::DeviceBuffer scores = layout.scores > 0 ? poisoned(size_t(layout.scores)) : cuda::DeviceBuffer();
    const cuda::DecodeBatch batch{sequences.as<const cuda::DecodeSequence>(), layout, in.format};
    const cuda::DecodeScratch scratch{partial_stats.as<float>(), partial_out.as<float>(), scores.as<float>()};
    // With nothing probed, no probe buffer (as the interface allows); the poisoned one must stay NaN.
    cuda::decode_attention(in.dq.as<float>(), batch, {shape.heads, shape.kv_heads, shape.hd}, in.p, run.out.data(),
                           run.stats.as<float>(), scratch, layout.scores > 0 ? run.probe.as<float>() : nullptr,
                           nullptr);
    gpu_test::sync();  // the scratch and the sequence array are freed on return
    return run;
}

struct Downloaded {
    std::vector<float> out, stats, probe;
};

Downloaded download_run(const DecodeInputs& in, const DecodeRun& run)
{
    return {download(run.out.data(), size_t(in.rows) * in.shape.q_width(), in.p),
            download(run.stats.data(), size_t(in.rows) * in.shape.heads * 2), download(run.probe.data(), run.probe_floats)};
}

// Sequence s's result as cpu::attention computes it for its one row (n = 1), and its
// statistics from double-precision sums over the same stored keys.
struct Expected {
    std::vector<float> out;    // [q_width]
    std::vector<float> probe;  // [len]
    std::vector<float> stats;  // [heads, 2]: largest scaled score, sum of exp(score - largest)
};

Expected reference(const DecodeInputs& in, int s)
{
    const Shape& shape = in.shape;
    const int len = in.lens[size_t(s)];
    const auto keys = in.expected_entries(in.caches[size_t(s)].keys, in.k, s, in.types.k);
    const auto values = in.expected_entries(in.caches[size_t(s)].values, in.v, s, in.types.v);
    const std::vector<float> q = in.q_row(s);
    Expected e;
    e.out.resize(size_t(shape.q_width()));
    e.probe.resize(size_t(len));
    const AttentionProbe probe{0, {in.weights[size_t(s)]}};
    cpu::attention(q.data(), 1, keys.data(), values.data(), len, {shape.heads, shape.kv_heads, shape.hd},
                   e.out.data(), &probe, e.probe.data());

    const int group = shape.heads / shape.kv_heads;
    const double scale = 1.0 / std::sqrt(double(shape.hd));
    std::vector<double> scores(static_cast<size_t>(len));
    for (int h = 0; h < shape.heads; ++h) {
        const float* qh = q.data() + size_t(h) * shape.hd;
        for (int j = 0; j < len; ++j) {
            const float* key = keys.data() + size_t(j) * shape.kv_dim() + size_t(h / group) * shape.hd;
            double dot = 0.0;
            for (int d = 0; d < shape.hd; ++d)
                dot += double(qh[d]) * double(key[d]);
            scores[size_t(j)] = dot * scale;
        }
        const double largest = *std::max_element(scores.begin(), scores.end());
        double sum = 0.0;
        for (double x : scores)
            sum += std::exp(x - largest);
        e.stats.push_back(float(largest));
        e.stats.push_back(float(sum));
    }
    return e;
}

// Statistics [heads, 2], each half with its own tolerance (see the header).
void check_stats(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected)
{
    std::vector<float> largest, sum, expected_largest, expected_sum;
    for (size_t i = 0; i + 1 < actual.size(); i += 2) {
        largest.push_back(actual[i]);
        sum.push_back(actual[i + 1]);
    }
    for (size_t i = 0; i + 1 < expected.size(); i += 2) {
        expected_largest.push_back(expected[i]);
        expected_sum.push_back(expected[i + 1]);
    }
    check_close(what + " largest score", largest, expected_largest, 1e-5, 1e-5);
    check_close(what + " sum of exponentials", sum, expected_sum, 1e-5, 2e-5);
}

void check_probe(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected)
{
    const float scale = *std::max_element(expected.begin(), expected.end());
    check_close(what, actual, expected, 1e-5 * scale, 1e-4);
}

std::vector<int> all_of(const DecodeInputs& in)
{
    std::vector<int> members(in.lens.size());
    std::iota(members.begin(), members.end(), 0);
    return members;
}

// Every sequence of the inputs decoded in one batch, with what the step wrote.
struct WholeBatch {
    std::vector<int> members;  // all of the inputs' sequences, in order
    DecodeRun run;
    Downloaded got;
    size_t q_width = 0, stats_width = 0;  // floats of one row's output and statistics
};

WholeBatch decode_whole_batch(const DecodeInputs& in)
{
    WholeBatch batch;
    batch.members = all_of(in);
    batch.run = run_decode(in, batch.members);
    batch.got = download_run(in, batch.run);
    batch.q_width = size_t(in.shape.q_width());
    batch.stats_width = size_t(in.shape.heads) * 2;
    return batch;
}

// Every sequence of `in` decoded in one batch against the reference (see the header).
void check_against_reference(const DecodeInputs& in, const std::string& tag)
{
    const Precision p = in.p;
    const auto [members, run, got, q_width, stats_width] = decode_whole_batch(in);

    for (int s : members) {
        const cuda::DecodeSequence& d = run.sequences[size_t(s)];
        const std::string what = tag + " len=" + std::to_string(d.len) + " row=" + std::to_string(d.row) +
                                 " blocks of " + std::to_string(in.block_entries) +
                                 (in.probed[size_t(s)] ? " probed" : "");
        const auto stored = in.caches[size_t(s)].store.download();
        check_close("store_kv_decode keys" + what, stored.keys,
                    in.expected_entries(in.caches[size_t(s)].keys, in.k, s, in.types.k), 0.0, 0.0);
        check_close("store_kv_decode values" + what, stored.values,
                    in.expected_entries(in.caches[size_t(s)].values, in.v, s, in.types.v), 0.0, 0.0);

        const Expected e = reference(in, s);
        check_close("decode_attention" + what, slice(got.out, size_t(d.row) * q_width, q_width), e.out,
                    p == Precision::Fp32 ? 1e-5 : kHalfStep, 1e-4);
        check_stats("decode_attention stats" + what, slice(got.stats, size_t(d.row) * stats_width, stats_width),
                    e.stats);
        if (in.probed[size_t(s)])
            check_probe("decode_attention probe" + what, slice(got.probe, size_t(d.probe_base), size_t(d.len)),
                        e.probe);
        else
            GPU_CHECK(written(got.probe, size_t(d.probe_base), size_t(d.len)) == 0,
                      "an unprobed sequence's probe slice was written:" + what);
    }
    for (int r = 0; r < in.rows; ++r)
        if (std::find(in.row.begin(), in.row.end(), r) == in.row.end()) {
            const std::string what = tag + " row " + std::to_string(r) + " outside the batch";
            GPU_CHECK(written(got.out, size_t(r) * q_width, q_width) == 0, "output written:" + what);
            GPU_CHECK(written(got.stats, size_t(r) * stats_width, stats_width) == 0, "stats written:" + what);
        }
}

void decode_attention_matches_reference()
{
    int variant = 0;
    for (Precision p : kPrecisions)
        for (const Shape& shape : kShapes) {
            const int block_entries = kBlockEntryChoices[variant % std::size(kBlockEntryChoices)];
            const DecodeInputs in(shape, p, kLengths, probe_pattern(kLengths.size(), variant++), block_entries);
            check_against_reference(in, describe(shape, p));
        }
}

// Every sequence of `in` decoded in one batch against attention() and attention_probe() run on
// its cache alone (see the header).
void check_against_single_rows(DecodeInputs& in, const std::string& tag)
{
    const Shape& shape = in.shape;
    const Precision p = in.p;
    const auto [members, run, got, q_width, stats_width] = decode_whole_batch(in);
    const cuda::AttentionDims dims{shape.heads, shape.kv_heads, shape.hd};

    for (int s : members) {
        const cuda::DecodeSequence& d = run.sequences[size_t(s)];
        const std::string what = tag + " len=" + std::to_string(d.len);
        const float* q_row = in.dq.as<float>() + size_t(d.row) * q_width;
        const cuda::KvBlockTable table = in.caches[size_t(s)].store.table();
        const cuda::DeviceBuffer out = poisoned(q_width, p);
        const cuda::DeviceBuffer stats = poisoned(stats_width);
        const cuda::DeviceBuffer probe = poisoned(size_t(d.len));
        const cuda::DeviceBuffer weight = upload(std::vector<float>{d.probe_weight});
        cuda::attention(q_row, 1, table, d.len, dims, p, out.data(), stats.as<float>(), nullptr);
        const cuda::DeviceBuffer partials = poisoned(cuda::probe_partial_floats(dims, d.len));
        cuda::attention_probe(q_row, 1, table, d.len, dims, p, stats.as<float>(), 0, weight.as<float>(),
                              partials.as<float>(), probe.as<float>(), nullptr);

        check_close("decode vs attention" + what, slice(got.out, size_t(d.row) * q_width, q_width),
                    download(out.data(), q_width, p), p == Precision::Fp32 ? 1e-5 : kHalfStep, 1e-5);
        check_stats("decode vs attention stats" + what, slice(got.stats, size_t(d.row) * stats_width, stats_width),
                    download(stats.data(), stats_width));
        if (in.probed[size_t(s)])
            check_probe("decode vs attention_probe" + what, slice(got.probe, size_t(d.probe_base), size_t(d.len)),
                        download(probe.data(), size_t(d.len)));
    }
}

void decode_attention_equals_single_row_attention()
{
    int variant = 1;
    for (Precision p : kPrecisions)
        for (const Shape& shape : kShapes) {
            DecodeInputs in(shape, p, kLengths, probe_pattern(kLengths.size(), variant++));
            check_against_single_rows(in, describe(shape, p));
        }
}

// Keys and values in q8 or q4, each or both (the other in the precision's own type), over the
// shapes whose heads are whole 32-value blocks: the stored entries are the CPU's bytes, the
// results are those of the reference over the same decoded entries and of the single-row
// kernels over the same cache, with the tolerances of the fp32/fp16 entries above.
void decode_attention_over_quantized_entries()
{
    int variant = 2;
    for (Precision p : kPrecisions) {
        const KvPrecision own = own_kv_types(p).k;
        for (const KvTypes types : {KvTypes{KvPrecision::Q8}, KvTypes{KvPrecision::Q4}, KvTypes{KvPrecision::Q8, own},
                                    KvTypes{own, KvPrecision::Q4}})
            for (const Shape& shape : kShapes) {
                if (shape.hd % kKvBlockValues != 0)
                    continue;
                const int block_entries = kBlockEntryChoices[variant % std::size(kBlockEntryChoices)];
                const std::string tag = describe(shape, p) + " KV " + kv_types_name(types);
                DecodeInputs in(shape, p, kLengths, probe_pattern(kLengths.size(), variant++), block_entries, types);
                check_against_reference(in, tag);
                check_against_single_rows(in, tag);
            }
    }
}

// `count` bytes at `offset` in a device buffer.
std::vector<std::byte> bytes_of(const cuda::DeviceBuffer& buffer, size_t offset, size_t count)
{
    gpu_test::sync();
    std::vector<std::byte> out(count);
    cudaMemcpy(out.data(), buffer.as<std::byte>() + offset, count, cudaMemcpyDeviceToHost);
    gpu_test::sync();
    return out;
}

void decode_result_does_not_depend_on_batch()
{
    const Shape shapes[] = {{8, 1, 40}, {4, 4, 64}, {6, 2, 256}};
    constexpr int kTarget = 3;  // the sequence run alone and in the batch
    for (Precision p : kPrecisions)
        for (const Shape& shape : shapes)
            for (int target_len : {kMinDecodeSplitEntries + 1, 300}) {
                // Its neighbours are shorter and longer, so the batch's longest cache and its
                // split slots differ from the lone sequence's.
                const std::vector<int> lens = {17, 700, 5, target_len, kMinDecodeSplitEntries, 1};
                const DecodeInputs in(shape, p, lens, {true, false, true, true, false, true});
                const DecodeRun alone = run_decode(in, {kTarget});
                const DecodeRun batch = run_decode(in, all_of(in));
                const cuda::DecodeSequence &a = alone.sequences[0], &b = batch.sequences[kTarget];
                const std::string what = describe(shape, p) + " len=" + std::to_string(target_len);

                const size_t row_bytes = size_t(shape.q_width()) * cuda::element_bytes(p);
                const size_t stats_bytes = size_t(shape.heads) * 2 * sizeof(float);
                const size_t probe_bytes = size_t(target_len) * sizeof(float);
                // NaN would equal NaN bit for bit: the lone run must have written everything.
                const Downloaded lone = download_run(in, alone);
                GPU_CHECK(written(lone.out, size_t(a.row) * shape.q_width(), size_t(shape.q_width())) ==
                              size_t(shape.q_width()),
                          "output row written:" + what);
                GPU_CHECK(written(lone.stats, size_t(a.row) * shape.heads * 2, size_t(shape.heads) * 2) ==
                              size_t(shape.heads) * 2,
                          "stats written:" + what);
                GPU_CHECK(written(lone.probe, 0, size_t(target_len)) == size_t(target_len), "probe written:" + what);

                GPU_CHECK(bytes_of(alone.out, a.row * row_bytes, row_bytes) ==
                              bytes_of(batch.out, b.row * row_bytes, row_bytes),
                          "output alone vs in a batch:" + what);
                GPU_CHECK(bytes_of(alone.stats, a.row * stats_bytes, stats_bytes) ==
                              bytes_of(batch.stats, b.row * stats_bytes, stats_bytes),
                          "stats alone vs in a batch:" + what);
                GPU_CHECK(bytes_of(alone.probe, a.probe_base * sizeof(float), probe_bytes) ==
                              bytes_of(batch.probe, b.probe_base * sizeof(float), probe_bytes),
                          "probe alone vs in a batch:" + what);
            }
}

// Grids launched for longer caches than the batch's (as a replayed decode layer's are, until its
// caches pass a doubling) give the same bytes: warps past a sequence's splits and entries do
// nothing. Grids shorter than the longest cache are refused.
void decode_grids_cover_any_length()
{
    GPU_CHECK(cuda::decode_grid_length(1) == cuda::kMinDecodeGridLength &&
                  cuda::decode_grid_length(cuda::kMinDecodeGridLength) == cuda::kMinDecodeGridLength &&
                  cuda::decode_grid_length(cuda::kMinDecodeGridLength + 1) == 2 * cuda::kMinDecodeGridLength &&
                  cuda::decode_grid_length(4096) == 4096 && cuda::decode_grid_length(4097) == 8192,
              "grid lengths: powers of two from kMinDecodeGridLength");
    const Shape shape{8, 2, 64};
    for (Precision p : kPrecisions) {
        const DecodeInputs in(shape, p, kLengths, probe_pattern(kLengths.size(), 1));
        const std::string what = describe(shape, p);
        const DecodeRun laid_out = run_decode(in, all_of(in));
        const DecodeRun wider = run_decode(in, all_of(in), 4 * cuda::decode_grid_length(700));
        const size_t out_bytes = size_t(in.rows) * shape.q_width() * cuda::element_bytes(p);
        GPU_CHECK(bytes_of(laid_out.out, 0, out_bytes) == bytes_of(wider.out, 0, out_bytes), "outputs:" + what);
        GPU_CHECK(bytes_of(laid_out.stats, 0, size_t(in.rows) * shape.heads * 2 * sizeof(float)) ==
                      bytes_of(wider.stats, 0, size_t(in.rows) * shape.heads * 2 * sizeof(float)),
                  "stats:" + what);
        GPU_CHECK(bytes_of(laid_out.probe, 0, laid_out.probe_floats * sizeof(float)) ==
                      bytes_of(wider.probe, 0, wider.probe_floats * sizeof(float)),
                  "probes:" + what);
        bool refused = false;
        try {
            run_decode(in, all_of(in), 512);  // the longest cache holds 700
        } catch (const Error& e) {
            refused = std::string(e.what()).find("grids for 512 cache entries") != std::string::npos;
        }
        GPU_CHECK(refused, "grids shorter than the longest cache are refused:" + what);
    }
}

// Split and score offsets are ints on the device: a batch whose probe scores would pass 2^31
// is refused on the host, before anything is laid out wrong.
void decode_layout_refuses_overflow()
{
    std::vector<cuda::DecodeSequence> huge(40);
    for (cuda::DecodeSequence& d : huge) {
        d.len = 1 << 20;
        d.score_base = 0;  // probed
    }
    bool threw = false;
    try {
        cuda::lay_out_decode_batch(huge, 64);  // 40 * 64 * 2^20 scores
    } catch (const Error&) {
        threw = true;
    }
    GPU_CHECK(threw, "2.7e9 probe scores must be refused");
    huge.resize(20);  // 1.3e9: fits
    const cuda::DecodeLayout layout = cuda::lay_out_decode_batch(huge, 64);
    GPU_CHECK(layout.scores == 20 * 64 * (1 << 20), std::to_string(layout.scores));
    GPU_CHECK(huge.back().score_base == 19 * 64 * (1 << 20), std::to_string(huge.back().score_base));
}

void decode_attention_empty_batch()
{
    const Shape shape{8, 2, 64};
    for (Precision p : kPrecisions) {
        const cuda::DeviceBuffer q = upload(random_floats(rng, size_t(shape.q_width())));
        const cuda::DeviceBuffer kv = upload(random_floats(rng, size_t(shape.kv_dim())));
        const cuda::DeviceBuffer out = poisoned(size_t(shape.q_width()), p);
        const cuda::DeviceBuffer stats = poisoned(size_t(shape.heads) * 2);
        std::vector<cuda::DecodeSequence> none;
        const cuda::DecodeLayout layout = cuda::lay_out_decode_batch(none, shape.heads);
        GPU_CHECK(layout.count == 0 && layout.max_len == 0 && layout.splits == 0 && layout.scores == 0,
                  "an empty layout");
        const cuda::KvBlockFormat format = cuda::KvGeometry{shape.kv_dim(), kBlockEntries, own_kv_types(p)}.format();
        cuda::store_kv_decode(kv.as<float>(), kv.as<float>(), nullptr, 0, format, nullptr);
        cuda::decode_attention(q.as<float>(), cuda::DecodeBatch{nullptr, layout, format},
                               {shape.heads, shape.kv_heads, shape.hd}, p, out.data(), stats.as<float>(),
                               cuda::DecodeScratch{}, nullptr, nullptr);
        gpu_test::sync();
        const cudaError_t status = cudaGetLastError();
        GPU_CHECK(status == cudaSuccess, std::string(cudaGetErrorString(status)));
        const std::string what = std::string(" [") + cuda::precision_name(p) + "]";
        GPU_CHECK(written(download(out.data(), size_t(shape.q_width()), p), 0, size_t(shape.q_width())) == 0,
                  "output untouched" + what);
        GPU_CHECK(written(download(stats.data(), size_t(shape.heads) * 2), 0, size_t(shape.heads) * 2) == 0,
                  "stats untouched" + what);
    }
}

} // namespace

std::vector<TestCase> decode_attention_tests()
{
    return {
        {"decode_attention_matches_reference", decode_attention_matches_reference},
        {"decode_attention_equals_single_row_attention", decode_attention_equals_single_row_attention},
        {"decode_attention_over_quantized_entries", decode_attention_over_quantized_entries},
        {"decode_result_does_not_depend_on_batch", decode_result_does_not_depend_on_batch},
        {"decode_attention_empty_batch", decode_attention_empty_batch},
        {"decode_layout_refuses_overflow", decode_layout_refuses_overflow},
        {"decode_grids_cover_any_length", decode_grids_cover_any_length},
    };
}
