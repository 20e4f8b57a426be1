#pragma once
// A KV head's keys laid out for a prompt's attention: kWidth keys side by side for each of
// their values, so one vector holds kWidth keys' value i and a dot kernel adds q[i] times it to
// kWidth dots at once. Read as stored (cache_rows.h), every dot is a chain of eight lane sums
// finished by shuffles, a third of the dot kernel's time at a head size of 64; over tiles each
// lane sum is its own vector and the finish is seven vertical adds for kWidth dots.
//
// The dots are float_dot.h's, bit for bit: lane l of a dot adds q[i] * key[i] for i = l, l + 8,
// ... in order (a tail's values after them), and the lanes are combined in dot's order. Laying
// a head out costs one pass over its keys (decoded to float32, value_at's floats), repaid once a
// few queries read them: attention tiles a head's keys for prompt slices and reads a decode
// step's one row as stored. Only AVX-512 runs the kernel: a query's eight chains of sixteen dots
// take eight registers, and its 32 hold two queries' (1.45x the dots over stored rows on Zen 4);
// AVX2's 16 hold one query's chains of eight dots, slower than the dots over stored rows.

#include <cstdint>
#include <vector>

#include "backend/kernel_config.h"
#include "backend/kv_entry_types.h"

namespace pyramid::cpu {

class KeyTiles {
public:
    static constexpr int kWidth = 16;  // keys a tile holds: one AVX-512 vector of float32

    // Lays out `count` rows of n values, `stride` stored elements apart; keys past `count` in
    // the last tile are zero. Does nothing if these very rows (same address, count and n) are
    // laid out already: a thread's consecutive tasks on one head lay it out once. With `isa`
    // KernelIsa::Avx512Vnni, float32 and fp16 rows go sixteen keys by sixteen values at a time,
    // converted and transposed in registers, q8 and q4 rows decoded first (a prompt slice lays
    // out every head it reads, so value by value this took an eighth of the dots' time, and
    // over q8 as long as the dots); the floats are the same.
    template <typename Stored>
    void lay_out(const Stored* rows, int64_t stride, int count, int n, KernelIsa isa);

    int keys() const { return count_; }
    int values_per_key() const { return n_; }
    // Tile t: n rows of kWidth floats, value i of keys t * kWidth to t * kWidth + kWidth - 1.
    const float* tile(int t) const { return values_.data() + static_cast<size_t>(t) * n_ * kWidth; }

private:
    std::vector<float> values_;
    std::vector<float> decoded_;  // a tile's quantized keys as float32, on their way into values_
    const void* rows_ = nullptr;
    int count_ = 0;
    int n_ = 0;
};

// out[r * out_stride + j] = dot(q + r * q_stride, key j, n) (float_dot.h) for r < n_q and every
// j below count rounded up to a multiple of KeyTiles::kWidth (dots with the zero keys past the
// last are 0 when q is finite); count <= keys.keys(). `isa` must be KernelIsa::Avx512Vnni.
void key_tile_dots(const KeyTiles& keys, const float* q, int64_t q_stride, int n_q, int count, float* out,
                   int64_t out_stride, KernelIsa isa);

} // namespace pyramid::cpu
