#include "backend/backend_loader.h"

#include <dlfcn.h>

#include <array>
#include <exception>
#include <filesystem>
#include <vector>

#include <spdlog/spdlog.h>

#include "backend/cpu_backend.h"
#include "util/error.h"

namespace pyramid {
namespace {

std::vector<std::filesystem::path> plugin_candidates(const std::filesystem::path& plugin_dir)
{
    std::vector<std::filesystem::path> out;
    if (!plugin_dir.empty())
        out.push_back(plugin_dir / kCudaPluginLibrary);
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        // Installed anywhere: <prefix>/bin/tool -> <prefix>/<libdir>/pyramidchat (a moved tarball too);
        // build tree: <build>/app/<tool>/tool -> <build>/kernels.
        out.push_back(exe.parent_path().parent_path() / PYRAMID_BACKEND_RELATIVE_DIR / kCudaPluginLibrary);
        out.push_back(exe.parent_path() / kCudaPluginLibrary);
        out.push_back(exe.parent_path().parent_path().parent_path() / "kernels" / kCudaPluginLibrary);
        out.push_back(exe.parent_path().parent_path() / "kernels" / kCudaPluginLibrary);
    }
    out.push_back(std::filesystem::path(PYRAMID_BACKEND_INSTALL_DIR) / kCudaPluginLibrary);
    return out;
}

// Whether the NVIDIA driver's library is there. Without it no GPU can be used, and loading the
// plugin only to hear so would map the CUDA runtime and cuBLAS for the rest of the process
// (some 150 MiB resident, cuBLASLt's alone). The library is looked up, not initialized, so it
// can be let go again.
bool nvidia_driver_present(std::string& why)
{
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!driver) {
        why = std::string("no NVIDIA driver (") + dlerror() + ")";
        return false;
    }
    dlclose(driver);
    return true;
}

// Carries the caller's progress callback through the plugin's C entry point: what it throws
// is kept here and rethrown once the plugin has returned.
struct ProgressRelay {
    const std::function<void(double)>& progress;
    std::exception_ptr stopped;

    static bool report(void* context, double fraction)
    {
        auto* relay = static_cast<ProgressRelay*>(context);
        try {
            if (relay->progress)
                relay->progress(fraction);
            return true;
        } catch (...) {
            relay->stopped = std::current_exception();
            return false;
        }
    }
};

} // namespace

std::unique_ptr<Backend> load_cuda_backend(const ModelWeights& weights, const BackendOptions& options,
                                           std::string& note,
                                           const std::function<void(double)>& upload_progress)
{
    // A backend folder named explicitly is always tried: it may hold a backend that needs no
    // driver (the tests' CPU emulation of the device), and its own error says more.
    if (options.plugin_dir.empty() && !nvidia_driver_present(note))
        return nullptr;
    std::string tried;
    for (const auto& path : plugin_candidates(options.plugin_dir)) {
        if (!std::filesystem::exists(path)) {
            tried += (tried.empty() ? "" : ", ") + path.string();
            continue;
        }
        // Never unloaded: CUDA runtimes do not like being unloaded, and the process ends soon enough.
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            note = "cannot load " + path.string() + ": " + dlerror();
            return nullptr;
        }
        auto create = reinterpret_cast<CreateBackendFn>(dlsym(handle, kCudaPluginSymbol));
        if (!create) {
            note = path.string() + " has no " + kCudaPluginSymbol;
            return nullptr;
        }
        std::array<char, 1024> error{};
        ProgressRelay relay{upload_progress, nullptr};
        const PluginProgress progress{&ProgressRelay::report, &relay};
        auto fault = std::make_unique<PluginFault>();
        std::unique_ptr<Backend> backend(
            create(kBackendPluginAbi, &weights, &options.cuda, &progress, fault.get(), error.data(), error.size()));
        if (relay.stopped)
            std::rethrow_exception(relay.stopped);
        if (!backend) {
            note = error.data();
            return nullptr;
        }
        note = "the CUDA backend from " + path.string();
        return fault_raising_backend(std::move(backend), std::move(fault));
    }
    note = "the CUDA backend library was not found (looked for " + tried + ")";
    return nullptr;
}

BackendPreference parse_backend_preference(const std::string& text)
{
    if (text == "auto")
        return BackendPreference::Auto;
    if (text == "cpu")
        return BackendPreference::Cpu;
    if (text == "cuda")
        return BackendPreference::Cuda;
    throw Error("unknown device '" + text + "' (known: auto, cpu, cuda)");
}

BackendChoice choose_backend(const ModelWeights& weights, const BackendOptions& options,
                             const std::function<void(double)>& upload_progress)
{
    const auto on_the_cpu = [&] {
        return std::make_unique<CpuBackend>(weights, options.cpu_kv, options.cpu_kernels, CpuBackend::kSliceRows,
                                            options.cpu_kv_memory, options.cpu_threads);
    };
    if (options.device == BackendPreference::Cpu)
        return {on_the_cpu(), "the CPU, as chosen"};
    std::string note;
    if (auto cuda = load_cuda_backend(weights, options, note, upload_progress))
        return {std::move(cuda), std::move(note)};
    if (options.device == BackendPreference::Cuda)
        throw Error("CUDA was requested but is not available: " + note);
    spdlog::info("running on the CPU: {}", note);
    return {on_the_cpu(), "running on the CPU: " + note};
}

} // namespace pyramid
