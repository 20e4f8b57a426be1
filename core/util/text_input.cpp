#include "util/text_input.h"

#include <fstream>

#include "util/error.h"

namespace pyramid {
namespace {

std::string limit_text(size_t limit)
{
    return limit % (size_t{1} << 20) == 0 ? std::to_string(limit >> 20) + " MiB" : std::to_string(limit) + " bytes";
}

}  // namespace

std::string read_text_input(std::istream& in, const std::string& what, size_t limit)
{
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<size_t>(in.gcount()));
        if (text.size() > limit)
            throw Error(what + " holds more than " + limit_text(limit) + " of text; give less");
    }
    if (in.bad())
        throw Error("cannot read " + what);
    return text;
}

std::string read_text_file(const std::filesystem::path& path, size_t limit, const std::string& what)
{
    const std::string name = what.empty() ? "the text file " + path.string() : what;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error(name + " does not exist or is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("cannot open " + name);
    return read_text_input(in, name, limit);
}

} // namespace pyramid
