#include "model/safetensors_file.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {
namespace {

// The safetensors format caps the header at 100 MB; checking it first bounds what the JSON
// parser may allocate.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DtypeInfo {
    std::string_view name;
    size_t bytes;
    std::optional<TensorType> type;
};

constexpr DtypeInfo kDtypes[] = {
    {"F64", 8, std::nullopt},  {"F32", 4, TensorType::F32}, {"F16", 2, TensorType::F16},
    {"BF16", 2, TensorType::BF16}, {"F8_E5M2", 1, std::nullopt}, {"F8_E4M3", 1, std::nullopt},
    {"I64", 8, std::nullopt},  {"I32", 4, std::nullopt},     {"I16", 2, std::nullopt},
    {"I8", 1, std::nullopt},   {"U64", 8, std::nullopt},     {"U32", 4, std::nullopt},
    {"U16", 2, std::nullopt},  {"U8", 1, std::nullopt},      {"BOOL", 1, std::nullopt},
};

const DtypeInfo* find_dtype(std::string_view name)
{
    for (const auto& d : kDtypes)
        if (d.name == name)
            return &d;
    return nullptr;
}

} // namespace

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path)
{
    SafetensorsFile out;
    out.file_ = MappedFile::open(path);
    const std::byte* base = out.file_->data();
    const size_t size = out.file_->size();
    const std::string where = path.string() + ": ";

    if (size < 8)
        throw Error(where + "truncated: " + std::to_string(size) + " bytes, too short for a safetensors header");
    uint64_t header_len;
    std::memcpy(&header_len, base, 8);
    if (header_len > size - 8)
        throw Error(where + "header length " + std::to_string(header_len) + " exceeds the file size " + std::to_string(size));
    if (header_len > kMaxHeaderBytes)
        throw Error(where + "header length " + std::to_string(header_len) + " exceeds the 100 MB safetensors limit");

    const auto* text = reinterpret_cast<const char*>(base + 8);
    const nlohmann::json header = parse_json_document(std::string_view(text, header_len), where + "header");
    if (!header.is_object())
        throw Error(where + "header is not a JSON object");

    const uint64_t data_start = 8 + header_len;
    const uint64_t data_size = size - data_start;
    out.tensors_.reserve(header.size());
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                throw Error(where + "__metadata__ is not a JSON object");
            continue;
        }
        const std::string what = where + "tensor " + json_excerpt(name) + " ";
        if (!entry.is_object())
            throw Error(what + "is not described by a JSON object");

        SafetensorsTensor t;
        t.name = name;
        const auto dtype = entry.find("dtype");
        if (dtype == entry.end() || !dtype->is_string())
            throw Error(what + "has no \"dtype\" string");
        t.dtype = dtype->get<std::string>();
        const DtypeInfo* info = find_dtype(t.dtype);
        if (!info)
            throw Error(what + "has unknown dtype " + json_excerpt(t.dtype));
        t.type = info->type;

        const auto shape = entry.find("shape");
        if (shape == entry.end() || !shape->is_array())
            throw Error(what + "has no \"shape\" array");
        uint64_t elements = 1;
        for (const auto& d : *shape) {
            if (!d.is_number_unsigned() || d.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
                throw Error(what + "has an invalid dimension " + json_excerpt(d) + " in its shape");
            const uint64_t n = d.get<uint64_t>();
            if (__builtin_mul_overflow(elements, n, &elements))
                throw Error(what + "has too many elements (the product of its shape overflows)");
            t.shape.push_back(static_cast<int64_t>(n));
        }

        const auto offsets = entry.find("data_offsets");
        if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
            !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
            throw Error(what + "has no valid \"data_offsets\" pair");
        const auto begin = (*offsets)[0].get<uint64_t>();
        const auto end = (*offsets)[1].get<uint64_t>();
        if (begin > end || end > data_size)
            throw Error(what + "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                        ") lie outside the data section of " + std::to_string(data_size) + " bytes");
        uint64_t expected = 0;
        const bool overflow = __builtin_mul_overflow(elements, uint64_t{info->bytes}, &expected);
        if (overflow || expected != end - begin)
            throw Error(what + "holds " + std::to_string(end - begin) + " bytes but its dtype " + t.dtype +
                        " and shape need " + (overflow ? std::string("more than 2^64") : std::to_string(expected)));
        t.nbytes = static_cast<size_t>(end - begin);
        t.data = base + data_start + begin;
        out.index_.emplace(t.name, out.tensors_.size());
        out.tensors_.push_back(std::move(t));
    }

    // Entries must not share bytes: overlapping ranges mean the offsets are corrupt.
    std::vector<const SafetensorsTensor*> by_offset;
    for (const auto& t : out.tensors_)
        if (t.nbytes > 0)
            by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const SafetensorsTensor* a, const SafetensorsTensor* b) { return a->data < b->data; });
    for (size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i - 1]->data + by_offset[i - 1]->nbytes > by_offset[i]->data)
            throw Error(where + "tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name + "' overlap");
    return out;
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const
{
    const auto it = index_.find(std::string(name));
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

} // namespace pyramid
