#include "backend/tile_decoder.h"

namespace pyramid::cpu {

TileDecoder tile_decoder(TensorType type, KernelIsa isa)
{
    if (runs_avx2(isa))
        if (TileDecoder simd = detail::avx2_tile_decoder(type))
            return simd;
    return tensor_type_traits(type).to_float;
}

} // namespace pyramid::cpu
