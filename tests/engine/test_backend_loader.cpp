// Where no NVIDIA driver exists, choosing a backend says so and runs on the CPU without ever
// loading the CUDA backend library: loading it maps the CUDA runtime and cuBLAS, some 150 MiB
// resident, for nothing.
#include <QtTest>

#include <dlfcn.h>
#include <cstdlib>
#include <fstream>
#include <string>

#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

// The shared libraries mapped into this process whose file name contains `part`.
bool mapped(const std::string& part)
{
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        if (line.find(part) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace

class BackendLoaderTest : public QObject {
    Q_OBJECT

private slots:
    void withoutADriverTheCudaLibrariesStayUnloaded()
    {
        if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
            dlclose(driver);
            QSKIP("this machine has the NVIDIA driver");
        }
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendOptions{BackendPreference::Auto});
        QCOMPARE(model->backend().info().name, std::string("cpu"));
        QVERIFY2(model->backend_note().starts_with("running on the CPU: no NVIDIA driver (libcuda.so.1"),
                 model->backend_note().c_str());
        QVERIFY(!mapped("libpyramid_cuda"));
        QVERIFY(!mapped("libcublas"));
        QVERIFY(!mapped("libcudart"));

        // Asked for by name, CUDA fails with the same reason.
        try {
            Model::open(path, BackendOptions{BackendPreference::Cuda});
            QFAIL("CUDA was chosen without a driver");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("no NVIDIA driver") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(BackendLoaderTest)
#include "test_backend_loader.moc"
