#pragma once
// SHA-256 of a tensor's float32 dequantization: every element decoded with its type's
// to_float (bit-identical to ggml's), as little-endian float32 in storage order. It is the
// digest the kquants test files record as dequant_sha256, so a decoder (or a file) can be
// checked against ggml's without shipping the decoded values.
#include <string>

#include "model_contents.h"

namespace pyramid::inspect {

// Lower-case hex. Throws pyramid::Error for a tensor without a float decoding (no type) and
// when OpenSSL fails.
std::string dequant_sha256(const TensorEntry& tensor);

} // namespace pyramid::inspect
