#include "model/gguf_file.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {

static_assert(std::endian::native == std::endian::little, "the GGUF reader assumes a little-endian host");

std::string_view gguf_type_name(GgufType type)
{
    switch (type) {
    case GgufType::UInt8: return "uint8";
    case GgufType::Int8: return "int8";
    case GgufType::UInt16: return "uint16";
    case GgufType::Int16: return "int16";
    case GgufType::UInt32: return "uint32";
    case GgufType::Int32: return "int32";
    case GgufType::Float32: return "float32";
    case GgufType::Bool: return "bool";
    case GgufType::String: return "string";
    case GgufType::Array: return "array";
    case GgufType::UInt64: return "uint64";
    case GgufType::Int64: return "int64";
    case GgufType::Float64: return "float64";
    }
    return "unknown";
}

std::optional<int64_t> GgufValue::as_int() const
{
    if (const auto* u = std::get_if<uint64_t>(&value)) {
        if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return std::nullopt;
        return static_cast<int64_t>(*u);
    }
    if (const auto* i = std::get_if<int64_t>(&value))
        return *i;
    return std::nullopt;
}

std::optional<double> GgufValue::as_float() const
{
    if (const auto* d = std::get_if<double>(&value))
        return *d;
    if (const auto* u = std::get_if<uint64_t>(&value))
        return static_cast<double>(*u);
    if (const auto* i = std::get_if<int64_t>(&value))
        return static_cast<double>(*i);
    return std::nullopt;
}

std::optional<bool> GgufValue::as_bool() const
{
    if (const auto* b = std::get_if<bool>(&value))
        return *b;
    return std::nullopt;
}

std::optional<std::string_view> GgufValue::as_string() const
{
    if (const auto* s = std::get_if<std::string_view>(&value))
        return *s;
    return std::nullopt;
}

const GgufArray* GgufValue::as_array() const
{
    if (const auto* a = std::get_if<std::shared_ptr<const GgufArray>>(&value))
        return a->get();
    return nullptr;
}

namespace {

// Bytes one element of a type takes in the file; for strings and arrays, the least it can take
// (the length / type+count fields), which bounds how many can fit in the bytes left.
size_t min_encoded_size(GgufType type)
{
    switch (type) {
    case GgufType::UInt8: case GgufType::Int8: case GgufType::Bool: return 1;
    case GgufType::UInt16: case GgufType::Int16: return 2;
    case GgufType::UInt32: case GgufType::Int32: case GgufType::Float32: return 4;
    case GgufType::UInt64: case GgufType::Int64: case GgufType::Float64: return 8;
    case GgufType::String: return 8;
    case GgufType::Array: return 12;
    }
    return 0;
}

template <class T>
T load(const std::byte* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Decodes one packed fixed-size element.
GgufValue decode_packed(GgufType type, const std::byte* p)
{
    switch (type) {
    case GgufType::UInt8: return {type, uint64_t{load<uint8_t>(p)}};
    case GgufType::Int8: return {type, int64_t{load<int8_t>(p)}};
    case GgufType::UInt16: return {type, uint64_t{load<uint16_t>(p)}};
    case GgufType::Int16: return {type, int64_t{load<int16_t>(p)}};
    case GgufType::UInt32: return {type, uint64_t{load<uint32_t>(p)}};
    case GgufType::Int32: return {type, int64_t{load<int32_t>(p)}};
    case GgufType::UInt64: return {type, load<uint64_t>(p)};
    case GgufType::Int64: return {type, load<int64_t>(p)};
    case GgufType::Float32: return {type, double{load<float>(p)}};
    case GgufType::Float64: return {type, load<double>(p)};
    case GgufType::Bool: return {type, load<uint8_t>(p) != 0};
    case GgufType::String: case GgufType::Array: break;
    }
    throw Error("GGUF value of type " + std::string(gguf_type_name(type)) + " is not a packed number");
}

bool is_known_type(uint32_t id) { return id <= static_cast<uint32_t>(GgufType::Float64); }

constexpr int kMaxArrayDepth = 8;  // real files nest at most once; this bounds recursion
constexpr uint32_t kMaxDims = 4;   // ggml's GGML_MAX_DIMS
constexpr size_t kMaxTensorName = 64;  // GGML_MAX_NAME, the terminating NUL included

} // namespace

GgufValue GgufArray::at(size_t i) const
{
    if (i >= count_)
        throw Error("GGUF array index " + std::to_string(i) + " out of range (size " + std::to_string(count_) + ")");
    if (element_type_ == GgufType::String)
        return {GgufType::String, strings_[i]};
    if (element_type_ == GgufType::Array)
        return arrays_[i];
    return decode_packed(element_type_, packed_ + i * min_encoded_size(element_type_));
}

// Walks the file front to back; every read is bounds-checked against the mapped size.
class GgufParser {
public:
    explicit GgufParser(std::shared_ptr<const MappedFile> file)
        : file_(std::move(file)), base_(file_->data()), size_(file_->size())
    {
    }

    GgufFile parse()
    {
        GgufFile out;
        out.file_ = file_;
        read_header(out);
        read_metadata(out);
        read_alignment(out);
        read_tensor_infos(out);
        place_tensor_data(out);
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw Error(file_->path().string() + ": " + what); }

    // `index` >= 0 names an element of the array `what`; messages are built only on failure.
    static std::string describe(const std::string& what, int64_t index)
    {
        return index < 0 ? what : what + "[" + std::to_string(index) + "]";
    }

    void need(uint64_t n, const std::string& what, int64_t index = -1) const
    {
        if (n > size_ - pos_)
            fail("truncated: " + describe(what, index) + " needs " + std::to_string(n) + " bytes at offset " +
                 std::to_string(pos_) + " but the file ends at " + std::to_string(size_));
    }

    template <class T>
    T read(const std::string& what, int64_t index = -1)
    {
        need(sizeof(T), what, index);
        const T v = load<T>(base_ + pos_);
        pos_ += sizeof(T);
        return v;
    }

    std::string_view read_string(const std::string& what, int64_t index = -1)
    {
        const uint64_t len = read<uint64_t>(what, index);
        need(len, what, index);
        std::string_view s(reinterpret_cast<const char*>(base_ + pos_), static_cast<size_t>(len));
        pos_ += static_cast<size_t>(len);
        return s;
    }

    // Rejects a count of elements that cannot possibly fit in the rest of the file, before
    // anything is allocated for them.
    void check_count(uint64_t count, size_t min_each, const std::string& what) const
    {
        if (count > (size_ - pos_) / min_each)
            fail(what + " claims " + std::to_string(count) + " entries, more than the remaining " +
                 std::to_string(size_ - pos_) + " bytes can hold");
    }

    GgufType read_type(const std::string& what)
    {
        const uint32_t id = read<uint32_t>("type of " + what);
        if (!is_known_type(id))
            fail(what + " has unknown value type " + std::to_string(id));
        return static_cast<GgufType>(id);
    }

    void read_header(GgufFile& out)
    {
        if (size_ < 4 || std::memcmp(base_, "GGUF", 4) != 0)
            fail("not a GGUF file (no \"GGUF\" magic at the start)");
        pos_ = 4;
        out.version_ = read<uint32_t>("version");
        if (out.version_ == 1)
            fail("unsupported GGUF version 1 (only versions 2 and 3 are supported; re-convert the model)");
        if (out.version_ != 2 && out.version_ != 3) {
            if ((out.version_ & 0xffffu) == 0 && __builtin_bswap32(out.version_) <= 3)
                fail("big-endian GGUF files are not supported");
            fail("unsupported GGUF version " + std::to_string(out.version_) + " (supported: 2 and 3)");
        }
        n_tensors_ = read<uint64_t>("tensor count");
        n_kv_ = read<uint64_t>("metadata count");
        // Smallest encodings: a key/value is a key length, a type and one byte; a tensor info is
        // a name length, a dimension count, a type and an offset.
        check_count(n_kv_, 8 + 4 + 1, "metadata count");
        check_count(n_tensors_, 8 + 4 + 4 + 8, "tensor count");
    }

    GgufValue read_value(GgufType type, const std::string& what, int depth)
    {
        switch (type) {
        case GgufType::String: return {type, read_string(what)};
        case GgufType::Array: return {type, read_array(what, depth)};
        case GgufType::Bool: {
            const uint8_t b = read<uint8_t>(what);
            if (b > 1)
                fail(what + " is a bool holding " + std::to_string(b));
            return {type, b != 0};
        }
        default: {
            const size_t n = min_encoded_size(type);
            need(n, what);
            GgufValue v = decode_packed(type, base_ + pos_);
            pos_ += n;
            return v;
        }
        }
    }

    std::shared_ptr<const GgufArray> read_array(const std::string& what, int depth)
    {
        if (depth >= kMaxArrayDepth)
            fail(what + " nests arrays deeper than " + std::to_string(kMaxArrayDepth));
        auto array = std::make_shared<GgufArray>();
        array->element_type_ = read_type("elements of " + what);
        const uint64_t count = read<uint64_t>("element count of " + what);
        const size_t each = min_encoded_size(array->element_type_);
        check_count(count, each, what);
        array->count_ = static_cast<size_t>(count);
        switch (array->element_type_) {
        case GgufType::String:
            array->strings_.reserve(array->count_);
            for (size_t i = 0; i < array->count_; ++i)
                array->strings_.push_back(read_string(what, static_cast<int64_t>(i)));
            break;
        case GgufType::Array:
            array->arrays_.reserve(array->count_);
            for (size_t i = 0; i < array->count_; ++i)
                array->arrays_.push_back({GgufType::Array, read_array(describe(what, static_cast<int64_t>(i)), depth + 1)});
            break;
        default:
            array->packed_ = base_ + pos_;
            if (array->element_type_ == GgufType::Bool)
                for (size_t i = 0; i < array->count_; ++i)
                    if (load<uint8_t>(base_ + pos_ + i) > 1)
                        fail(what + "[" + std::to_string(i) + "] is a bool holding " +
                             std::to_string(load<uint8_t>(base_ + pos_ + i)));
            pos_ += array->count_ * each;
            break;
        }
        return array;
    }

    void read_metadata(GgufFile& out)
    {
        out.metadata_.reserve(static_cast<size_t>(n_kv_));
        for (uint64_t i = 0; i < n_kv_; ++i) {
            const std::string_view key = read_string("key of metadata entry " + std::to_string(i));
            const std::string what = "metadata " + json_excerpt(std::string(key));
            const GgufType type = read_type(what);
            GgufValue value = read_value(type, what, 0);
            if (!out.key_index_.emplace(key, out.metadata_.size()).second)
                fail("metadata key " + json_excerpt(std::string(key)) + " appears twice");
            out.metadata_.emplace_back(key, std::move(value));
        }
    }

    void read_alignment(GgufFile& out)
    {
        const GgufValue* v = out.find("general.alignment");
        if (!v)
            return;
        if (v->type != GgufType::UInt32)
            fail("general.alignment must be a uint32, found " + std::string(gguf_type_name(v->type)));
        const auto a = std::get<uint64_t>(v->value);
        if (a == 0 || !std::has_single_bit(a))
            fail("general.alignment " + std::to_string(a) + " is not a power of two");
        out.alignment_ = static_cast<uint32_t>(a);
    }

    void read_tensor_infos(GgufFile& out)
    {
        out.tensors_.reserve(static_cast<size_t>(n_tensors_));
        for (uint64_t i = 0; i < n_tensors_; ++i) {
            GgufTensorInfo t;
            t.name = std::string(read_string("name of tensor " + std::to_string(i)));
            // ggml keeps names in 64-byte fields; llama.cpp refuses longer ones too.
            if (t.name.size() >= kMaxTensorName)
                fail("the name of tensor " + std::to_string(i) + " is " + std::to_string(t.name.size()) +
                     " bytes long (" + json_excerpt(t.name, 40) + "); ggml allows " +
                     std::to_string(kMaxTensorName - 1));
            const std::string what = "tensor '" + t.name + "'";
            const uint32_t n_dims = read<uint32_t>("dimension count of " + what);
            if (n_dims == 0 || n_dims > kMaxDims)
                fail(what + " has " + std::to_string(n_dims) + " dimensions (1 to 4 supported)");
            t.n_dims = static_cast<int>(n_dims);
            int64_t elements = 1;
            for (uint32_t d = 0; d < n_dims; ++d) {
                const uint64_t ne = read<uint64_t>("dimension " + std::to_string(d) + " of " + what);
                if (ne > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                    fail(what + " has dimension " + std::to_string(d) + " = " + std::to_string(ne) + ", too large");
                t.ne[d] = static_cast<int64_t>(ne);
                if (__builtin_mul_overflow(elements, t.ne[d], &elements))
                    fail(what + " has too many elements (the product of its dimensions overflows)");
            }
            const uint32_t type_id = read<uint32_t>("type of " + what);
            const auto traits = tensor_type_traits(type_id);
            if (!traits)
                fail(what + " has unknown type id " + std::to_string(type_id));
            t.type = traits->type;
            t.offset = read<uint64_t>("data offset of " + what);
            if (t.ne[0] % traits->block_elems != 0)
                fail(what + " has rows of " + std::to_string(t.ne[0]) + " elements, not a multiple of the " +
                     std::string(traits->name) + " block size " + std::to_string(traits->block_elems));
            const int64_t rows = t.ne[1] * t.ne[2] * t.ne[3];  // cannot overflow: the full product did not
            size_t row_bytes = 0;
            if (__builtin_mul_overflow(static_cast<size_t>(t.ne[0] / traits->block_elems), traits->block_bytes, &row_bytes) ||
                __builtin_mul_overflow(row_bytes, static_cast<size_t>(rows), &t.nbytes))
                fail(what + " is too large (its byte size overflows)");
            if (!out.tensor_index_.emplace(t.name, out.tensors_.size()).second)
                fail("tensor name '" + t.name + "' appears twice");
            out.tensors_.push_back(std::move(t));
        }
    }

    void place_tensor_data(GgufFile& out)
    {
        const uint64_t a = out.alignment_;
        out.data_offset_ = (pos_ + a - 1) / a * a;  // pos_ <= size_, so this cannot overflow
        if (out.tensors_.empty())
            return;  // vocab-only files may end right after the tensor infos, unpadded
        if (out.data_offset_ > size_)
            fail("truncated: the tensor data section starts at " + std::to_string(out.data_offset_) +
                 " but the file ends at " + std::to_string(size_));
        const uint64_t data_size = size_ - out.data_offset_;
        for (auto& t : out.tensors_) {
            if (t.offset % a != 0)
                fail("tensor '" + t.name + "' data offset " + std::to_string(t.offset) +
                     " is not aligned to " + std::to_string(a) + " bytes");
            if (t.offset > data_size || t.nbytes > data_size - t.offset)
                fail("tensor '" + t.name + "' data (" + std::to_string(t.nbytes) + " bytes at data offset " +
                     std::to_string(t.offset) + ") extends past the end of the file (data section holds " +
                     std::to_string(data_size) + " bytes)");
            t.data = base_ + out.data_offset_ + t.offset;
        }
        // Tensors must not share bytes: overlapping data means the offsets are corrupt.
        std::vector<const GgufTensorInfo*> by_offset;
        by_offset.reserve(out.tensors_.size());
        for (const auto& t : out.tensors_)
            if (t.nbytes > 0)
                by_offset.push_back(&t);
        std::sort(by_offset.begin(), by_offset.end(),
                  [](const GgufTensorInfo* x, const GgufTensorInfo* y) { return x->offset < y->offset; });
        for (size_t i = 1; i < by_offset.size(); ++i)
            if (by_offset[i - 1]->offset + by_offset[i - 1]->nbytes > by_offset[i]->offset)
                fail("tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name + "' overlap in the data section");
    }

    std::shared_ptr<const MappedFile> file_;
    const std::byte* base_;
    size_t size_;
    size_t pos_ = 0;
    uint64_t n_tensors_ = 0;
    uint64_t n_kv_ = 0;
};

GgufFile GgufFile::open(const std::filesystem::path& path)
{
    return GgufParser(MappedFile::open(path)).parse();
}

const GgufValue* GgufFile::find(std::string_view key) const
{
    const auto it = key_index_.find(key);
    return it == key_index_.end() ? nullptr : &metadata_[it->second].second;
}

void GgufFile::wrong_type(std::string_view key, const GgufValue& v, const char* wanted) const
{
    throw Error(path().string() + ": metadata " + json_excerpt(std::string(key)) + " should be " + wanted + ", found " +
                std::string(gguf_type_name(v.type)));
}

std::optional<int64_t> GgufFile::get_int(std::string_view key) const
{
    const GgufValue* v = find(key);
    if (!v)
        return std::nullopt;
    if (auto i = v->as_int())
        return i;
    wrong_type(key, *v, "an integer");
}

std::optional<double> GgufFile::get_float(std::string_view key) const
{
    const GgufValue* v = find(key);
    if (!v)
        return std::nullopt;
    if (auto f = v->as_float())
        return f;
    wrong_type(key, *v, "a number");
}

std::optional<bool> GgufFile::get_bool(std::string_view key) const
{
    const GgufValue* v = find(key);
    if (!v)
        return std::nullopt;
    if (auto b = v->as_bool())
        return b;
    wrong_type(key, *v, "a bool");
}

std::optional<std::string_view> GgufFile::get_string(std::string_view key) const
{
    const GgufValue* v = find(key);
    if (!v)
        return std::nullopt;
    if (auto s = v->as_string())
        return s;
    wrong_type(key, *v, "a string");
}

const GgufArray* GgufFile::get_array(std::string_view key) const
{
    const GgufValue* v = find(key);
    if (!v)
        return nullptr;
    if (const GgufArray* a = v->as_array())
        return a;
    wrong_type(key, *v, "an array");
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const
{
    const auto it = tensor_index_.find(std::string(name));
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

} // namespace pyramid
