#pragma once
// What the CPU benchmark tools share: where they ran, and the median of repeated timings.
#include <string>
#include <vector>

namespace pyramid::inspect {

// The CPU's model name from /proc/cpuinfo ("unknown CPU" where there is none).
std::string cpu_name();

// Today's local date as YYYY-MM-DD.
std::string today();

// The median of `v` (not empty).
double median(std::vector<double> v);

} // namespace pyramid::inspect
