#pragma once
// Process-wide logging through spdlog: warnings and errors (everything with --verbose) to
// stderr, and a log file in the user's data folder for bug reports.
#include <filesystem>
#include <string>

namespace pyramid {

struct LoggingOptions {
    bool verbose = false;        // debug level on stderr
    bool log_file = true;        // also write <data dir>/pyramidchat.log
    std::string program = "pyramidchat";
};

// $XDG_DATA_HOME/pyramidchat, or ~/.local/share/pyramidchat.
std::filesystem::path user_data_dir();

// Installs the default logger; a log file that cannot be opened is reported and skipped.
void init_logging(const LoggingOptions& options);

} // namespace pyramid
