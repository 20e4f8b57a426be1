#pragma once
// pyramid-bench --write-gguf: generated weights of a named shape written as a GGUF file, so
// llama.cpp and this engine can be benchmarked side by side on the same bytes
// (bench/gpu_llamacpp.py). The weights are the ones pyramid-bench --shape runs (same shape,
// storage and seed, made on the host: a 7B model in F16 takes 12.6 GiB of memory while it is
// written); the vocabulary comes from a GGUF file (model/gguf_writer.h).
#include <cstdint>
#include <filesystem>
#include <string>

#include "model/synthetic_storage.h"

namespace pyramid::bench {

struct GeneratedModelFile {
    std::string shape;
    SyntheticStorage storage;
    uint64_t seed = 1;
    std::filesystem::path vocabulary;  // a GGUF file holding the shape's 32,000-token vocabulary
};

// Writes the file and returns its size in bytes; throws pyramid::Error naming the problem
// (unknown shape, vocabulary of another size, a write that failed).
uint64_t write_generated_model(const GeneratedModelFile& what, const std::filesystem::path& path);

} // namespace pyramid::bench
