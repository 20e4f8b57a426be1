#pragma once
// Result files of the tools (JSON, plots). Checked before the work that fills them, so a long
// measurement never ends in "cannot write"; written whole, with the file named on failure.
#include <filesystem>
#include <string>

namespace pyramid {

// Throws pyramid::Error unless `path` can be written: it is opened for appending, which
// creates it when missing and leaves what is there, until the results replace it.
void check_writable(const std::filesystem::path& path);

// Creates `folder` and its parents; throws pyramid::Error naming it when it cannot.
void create_folder(const std::filesystem::path& folder);

// Replaces the file's contents with `text`; throws pyramid::Error naming it on failure.
void write_text_file(const std::filesystem::path& path, const std::string& text);

} // namespace pyramid
