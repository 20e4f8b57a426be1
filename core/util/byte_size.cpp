#include "util/byte_size.h"

#include <fmt/format.h>

namespace pyramid {

std::string byte_size_text(uint64_t bytes)
{
    const double b = static_cast<double>(bytes);
    constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
    if (b >= kGiB)
        return fmt::format("{:.2f} GiB", b / kGiB);
    if (b >= kMiB)
        return fmt::format("{:.1f} MiB", b / kMiB);
    if (b >= kKiB)
        return fmt::format("{:.1f} KiB", b / kKiB);
    return fmt::format("{} bytes", bytes);
}

} // namespace pyramid
