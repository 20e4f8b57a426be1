#include "text_input.h"

#include <fstream>

#include "util/byte_size.h"
#include "util/error.h"

namespace pyramid {

std::string read_text_input(std::istream& in, const std::string& what, size_t limit)
{
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<size_t>(in.gcount()));
        if (text.size() > limit)
            throw Error(what + " holds more than " + byte_size_text(limit) + " of text; give less");
    }
    if (in.bad())
        throw Error("cannot read " + what);
    return text;
}

std::string read_text_file(const std::filesystem::path& path, size_t limit)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error("the text file " + path.string() + " does not exist or is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("cannot open the text file " + path.string());
    return read_text_input(in, "the text file " + path.string(), limit);
}

} // namespace pyramid
