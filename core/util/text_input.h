#pragma once
// Text read whole from a stream or a file (a prompt on standard input, text to score, a
// config.json), bounded: a stream that never ends (/dev/zero, a runaway pipe) is an error, not
// a machine out of memory, and a FIFO is refused instead of waited on.
#include <cstddef>
#include <filesystem>
#include <istream>
#include <string>

namespace pyramid {

inline constexpr size_t kTextInputLimit = size_t{64} << 20;  // far beyond any context window

// All of `in`. Throws pyramid::Error naming `what` ("standard input") when it holds more
// than `limit` bytes, or when reading fails.
std::string read_text_input(std::istream& in, const std::string& what, size_t limit = kTextInputLimit);

// All of the file at `path`. Throws pyramid::Error naming it when it is not a regular file
// (a FIFO would block, a device never end), cannot be read, or holds more than `limit` bytes.
// `what` names the file in messages ("the text file x.txt" unless given).
std::string read_text_file(const std::filesystem::path& path, size_t limit = kTextInputLimit,
                           const std::string& what = {});

} // namespace pyramid
