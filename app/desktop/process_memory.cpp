#include "process_memory.h"

#include <fstream>
#include <unistd.h>

std::optional<int64_t> residentMemoryBytes()
{
    std::ifstream statm("/proc/self/statm");
    int64_t totalPages = 0;
    int64_t residentPages = 0;
    if (!(statm >> totalPages >> residentPages))
        return std::nullopt;
    return residentPages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}
