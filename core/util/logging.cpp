#include "util/logging.h"

#include <cstdlib>
#include <memory>
#include <vector>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace pyramid {

std::filesystem::path user_data_dir()
{
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "pyramidchat";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".local" / "share" / "pyramidchat";
    return std::filesystem::temp_directory_path() / "pyramidchat";
}

void init_logging(const LoggingOptions& options)
{
    auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_level(options.verbose ? spdlog::level::debug : spdlog::level::warn);
    std::vector<spdlog::sink_ptr> sinks{console};
    std::string file_problem;
    if (options.log_file) {
        try {
            const auto dir = user_data_dir();
            std::filesystem::create_directories(dir);
            auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>((dir / "pyramidchat.log").string(),
                                                                               4 * 1024 * 1024, 2);
            file->set_level(spdlog::level::debug);
            sinks.push_back(file);
        } catch (const std::exception& e) {
            file_problem = e.what();
        }
    }
    auto logger = std::make_shared<spdlog::logger>(options.program, sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::debug);
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(logger);
    if (!file_problem.empty())
        spdlog::warn("no log file: {}", file_problem);
}

} // namespace pyramid
