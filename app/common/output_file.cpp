#include "output_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "util/error.h"

namespace pyramid {

void check_writable(const std::filesystem::path& path)
{
    if (!std::ofstream(path, std::ios::app))
        throw Error("cannot write " + path.string() + ": " + std::strerror(errno));
}

void create_folder(const std::filesystem::path& folder)
{
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
        throw Error("cannot create the folder " + folder.string() + ": " + ec.message());
}

void write_text_file(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw Error("cannot write " + path.string());
}

} // namespace pyramid
