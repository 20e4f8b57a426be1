#pragma once
// What the benchmark tools share: the median of repeated timings, and where and when they ran.
#include <string>
#include <vector>

namespace pyramid {

// The median of `v` (not empty).
double median(std::vector<double> v);

// The CPU's model name from /proc/cpuinfo ("unknown CPU" where there is none).
std::string cpu_model_name();

// Now in UTC as 2026-11-24T12:00:00Z.
std::string utc_timestamp();

// Today's local date as YYYY-MM-DD.
std::string local_date();

} // namespace pyramid
