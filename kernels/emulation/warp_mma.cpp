#include "emulation/warp_mma.h"

#include <cuda_fp16.h>

#include <array>
#include <cstring>

#include "emulation/block_scheduler.h"

namespace pyramid::cuda::emulation {
namespace {

constexpr unsigned kAllLanes = 0xffffffffu;

float half_at(uint32_t reg, int high) { return __half2float(__ushort_as_half(static_cast<unsigned short>(reg >> (16 * high)))); }

// Every lane's `words` registers, lane-major.
template <int Words>
std::array<uint32_t, 32 * Words> gather(const char* operation, const uint32_t* mine)
{
    const unsigned char* all = exchange_in_warp(operation, kAllLanes, mine, sizeof(uint32_t) * Words);
    std::array<uint32_t, 32 * Words> out;
    for (int lane = 0; lane < 32; ++lane)
        std::memcpy(&out[size_t(lane) * Words], all + size_t(lane) * kExchangeBytes, sizeof(uint32_t) * Words);
    return out;
}

} // namespace

void mma_16x8x16(float d[4], const uint32_t a[4], const uint32_t b[2])
{
    const auto a_all = gather<4>("mma.sync (A)", a);
    const auto b_all = gather<2>("mma.sync (B)", b);
    // A[row][k] and B[k][col] where the PTX layout puts them.
    const auto a_at = [&](int row, int k) {
        const int lane = (row % 8) * 4 + (k % 8) / 2, reg = (row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0);
        return half_at(a_all[size_t(lane) * 4 + reg], k % 2);
    };
    const auto b_at = [&](int k, int col) {
        const int lane = col * 4 + (k % 8) / 2, reg = k >= 8 ? 1 : 0;
        return half_at(b_all[size_t(lane) * 2 + reg], k % 2);
    };
    const int lane = static_cast<int>(current_lane()), g = lane / 4, c = lane % 4;
    for (int i = 0; i < 4; ++i) {
        const int row = g + (i >= 2 ? 8 : 0), col = 2 * c + i % 2;
        float sum = d[i];
        for (int k = 0; k < 16; ++k)
            sum += a_at(row, k) * b_at(k, col);
        d[i] = sum;
    }
}

} // namespace pyramid::cuda::emulation
