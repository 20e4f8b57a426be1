#include "dequant_digest.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <vector>

#include <openssl/evp.h>

#include "util/error.h"

namespace pyramid::inspect {

std::string dequant_sha256(const TensorEntry& tensor)
{
    static_assert(std::endian::native == std::endian::little, "digests are over little-endian float32");
    if (!tensor.type)
        throw Error("tensor " + tensor.name + " has type " + tensor.type_name + ", which has no float32 decoding");
    const auto& traits = tensor_type_traits(*tensor.type);
    const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw Error("OpenSSL could not start a SHA-256 digest");

    // Whole blocks at a time, about a million elements per chunk.
    const int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 20) / traits.block_elems) * traits.block_elems;
    std::vector<float> decoded(static_cast<size_t>(std::min(chunk, tensor.elements)));
    for (int64_t done = 0; done < tensor.elements; done += chunk) {
        const int64_t n = std::min(chunk, tensor.elements - done);
        traits.to_float(tensor.data + static_cast<size_t>(done / traits.block_elems) * traits.block_bytes,
                        decoded.data(), n);
        if (EVP_DigestUpdate(ctx.get(), decoded.data(), static_cast<size_t>(n) * sizeof(float)) != 1)
            throw Error("OpenSSL SHA-256 update failed for tensor " + tensor.name);
    }

    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
        throw Error("OpenSSL SHA-256 final failed for tensor " + tensor.name);
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

} // namespace pyramid::inspect
