#pragma once
// One device allocation, freed with its owner. Allocation failures say how many bytes were
// wanted and how many the device had free, so an out-of-memory report is actionable.
#include <cstddef>
#include <string>

namespace pyramid::cuda {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    // Throws pyramid::Error naming `what`, the bytes wanted and the bytes free.
    DeviceBuffer(size_t bytes, const std::string& what);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void* data() const { return data_; }
    template <typename T>
    T* as() const { return static_cast<T*>(data_); }
    size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

// "N bytes (x.y GiB)": how sizes appear in messages.
std::string format_bytes(size_t bytes);

// Free and total memory of the current device.
struct DeviceMemory {
    size_t free = 0;
    size_t total = 0;
};
DeviceMemory device_memory();

} // namespace pyramid::cuda
