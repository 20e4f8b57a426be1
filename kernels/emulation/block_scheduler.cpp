#include "emulation/block_scheduler.h"

#include "emulation/emulated_device.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace pyramid::cuda::emulation {
namespace {

namespace context = boost::context;

constexpr unsigned kWarpSize = 32;
constexpr size_t kStackBytes = 256 * 1024;  // kernels keep small arrays in registers, which live here

enum class Wait { Running, Block, Warp, Exited };

struct Fiber {
    context::fiber suspended;  // the thread, while it waits
    context::fiber scheduler;  // where the thread returns to, while it runs
    ThreadIndex index{};
    Wait wait = Wait::Running;
    const char* operation = nullptr;  // the warp-synchronous call it waits in
    std::source_location barrier;     // the __syncthreads it waits at
    unsigned mask = 0;
    std::array<unsigned char, kExchangeBytes> published{};
    const unsigned char* received = nullptr;
    bool waited = false;  // called wait_for_prior_grids
};

using Snapshot = std::array<unsigned char, kWarpSize * kExchangeBytes>;

// Fiber stacks, mapped once and reused by every block (guard page below each): creating a
// block's fibers then costs no system call.
class StackPool {
public:
    ~StackPool()
    {
        for (void* s : mappings_)
            munmap(s, kStackBytes + page());
    }
    char* take()
    {
        if (free_.empty()) {
            void* s = mmap(nullptr, kStackBytes + page(), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (s == MAP_FAILED)
                kernel_fault("cannot map a fiber stack");
            mprotect(s, page(), PROT_NONE);
            mappings_.push_back(s);
            free_.push_back(static_cast<char*>(s) + page());
        }
        char* stack = free_.back();
        free_.pop_back();
        return stack;
    }
    void give(char* stack) { free_.push_back(stack); }

private:
    static size_t page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
    std::vector<void*> mappings_;
    std::vector<char*> free_;
};

// Boost.Context's stack allocator interface over the pool.
struct PooledStack {
    StackPool* pool;
    context::stack_context allocate()
    {
        context::stack_context s;
        s.size = kStackBytes;
        s.sp = pool->take() + kStackBytes;  // stacks grow down
        return s;
    }
    void deallocate(context::stack_context& s) { pool->give(static_cast<char*>(s.sp) - kStackBytes); }
};

struct Block {
    const void* kernel = nullptr;
    const std::function<void()>* body = nullptr;
    bool overlapped = false;  // launched to overlap the grid before it (KernelStream::overlap_prior)
    std::vector<Fiber> fibers;
    Fiber* running = nullptr;
    std::vector<unsigned char> shared;
    std::vector<Snapshot> snapshots;  // reserved for one per thread: released fibers keep pointers
};

Block* t_block = nullptr;  // see running_thread
StackPool fiber_stacks;

std::string triple(unsigned x, unsigned y, unsigned z)
{
    char text[48];
    std::snprintf(text, sizeof text, "(%u,%u,%u)", x, y, z);
    return text;
}

// The kernel's name for fault messages (looked up only then), where the symbol table has it.
std::string kernel_name(const void* kernel)
{
    Dl_info info{};
    if (dladdr(kernel, &info) && info.dli_sname) {
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status),
                                                         std::free);
        return status == 0 ? demangled.get() : info.dli_sname;
    }
    char text[32];
    std::snprintf(text, sizeof text, "kernel %p", kernel);
    return text;
}

std::string where(const Fiber& f)
{
    const ThreadIndex& i = f.index;
    return (t_block ? kernel_name(t_block->kernel) : std::string("?")) + ", block " +
           triple(i.block_idx.x, i.block_idx.y, i.block_idx.z) + ", thread " +
           triple(i.thread_idx.x, i.thread_idx.y, i.thread_idx.z);
}

Fiber& running()
{
    if (!t_block || !t_block->running)
        kernel_fault("a device built-in was called outside an emulated kernel");
    return *t_block->running;
}

// A grid launched to overlap its predecessor may run while that one still writes: a thread of
// it must wait before it touches memory its predecessor may write, so before any barrier or
// warp-synchronous call, and before it ends.
void check_waited(const Fiber& f, const char* before)
{
    if (t_block->overlapped && !f.waited)
        kernel_fault(std::string("launched to overlap the kernel before it, ") + where(f) + " reached " + before +
                     " without wait_for_prior_grids() (grid_dependency.cuh)");
}

void yield(Fiber& f)
{
    f.scheduler = std::move(f.scheduler).resume();
}

std::string mask_text(unsigned mask)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", mask);
    return text;
}

// Releases the lanes of warp `w` waiting in complete warp-synchronous calls; true if any.
bool release_warp(Block& b, size_t w)
{
    const size_t first = w * kWarpSize;
    const size_t lanes = std::min<size_t>(kWarpSize, b.fibers.size() - first);
    bool released = false;
    for (size_t l = 0; l < lanes; ++l) {
        Fiber& f = b.fibers[first + l];
        if (f.wait != Wait::Warp)
            continue;
        bool complete = true;
        for (unsigned m = 0; m < kWarpSize && complete; ++m) {
            if (!(f.mask >> m & 1u))
                continue;
            if (m >= lanes)
                kernel_fault(std::string(f.operation) + " with mask " + mask_text(f.mask) + " names lane " +
                             std::to_string(m) + ", which this block does not have, at " + where(f));
            const Fiber& other = b.fibers[first + m];
            if (other.wait == Wait::Exited)
                kernel_fault(std::string(f.operation) + " with mask " + mask_text(f.mask) + " waits for lane " +
                             std::to_string(m) + ", which has exited, at " + where(f));
            if (other.wait == Wait::Warp && (other.mask != f.mask || (other.operation != f.operation &&
                                                                      std::strcmp(other.operation, f.operation) != 0)))
                kernel_fault("lanes of one warp in different warp-synchronous calls: " + std::string(f.operation) +
                             " mask " + mask_text(f.mask) + " at " + where(f) + ", " + other.operation + " mask " +
                             mask_text(other.mask) + " at " + where(other));
            complete = other.wait == Wait::Warp;
        }
        if (!complete)
            continue;
        Snapshot& s = b.snapshots.emplace_back();
        s.fill(0xff);
        for (unsigned m = 0; m < kWarpSize; ++m)
            if (f.mask >> m & 1u)
                std::memcpy(s.data() + m * kExchangeBytes, b.fibers[first + m].published.data(), kExchangeBytes);
        const unsigned mask = f.mask;
        for (unsigned m = 0; m < kWarpSize; ++m)
            if (mask >> m & 1u) {
                b.fibers[first + m].wait = Wait::Running;
                b.fibers[first + m].received = s.data();
            }
        released = true;
    }
    return released;
}

std::string site_text(const std::source_location& site)
{
    return std::string(site.file_name()) + ":" + std::to_string(site.line());
}

bool same_site(const std::source_location& a, const std::source_location& b)
{
    return a.line() == b.line() && a.column() == b.column() && std::strcmp(a.file_name(), b.file_name()) == 0;
}

// Threads of a block at different __syncthreads: undefined on the hardware (a hang, or a
// barrier that releases the wrong threads), so never let them pass each other here.
void check_same_barrier(const Block& b)
{
    const Fiber* first = nullptr;
    for (const Fiber& f : b.fibers) {
        if (f.wait != Wait::Block)
            continue;
        if (!first)
            first = &f;
        else if (!same_site(f.barrier, first->barrier))
            kernel_fault("threads of a block wait at different __syncthreads: " + where(*first) + " at " +
                         site_text(first->barrier) + ", " + where(f) + " at " + site_text(f.barrier));
    }
}

[[noreturn]] void report_deadlock(const Block& b)
{
    std::string waits;
    for (const Fiber& f : b.fibers) {
        if (f.wait == Wait::Exited)
            continue;
        waits += "\n  " + where(f) + ": " +
                 (f.wait == Wait::Block ? "__syncthreads at " + site_text(f.barrier)
                                        : std::string(f.operation) + " mask " + mask_text(f.mask));
        if (waits.size() > 2000)
            break;
    }
    kernel_fault("the threads of a block wait at barriers that can never complete:" + waits);
}

// Runs one block. Between barriers its threads run one after another, first to last in even
// blocks and last to first in odd ones, so a kernel that needs a barrier it lacks sees the
// other order too.
void run_block(Block& b, bool reversed)
{
    for (Fiber& f : b.fibers) {
        f.wait = Wait::Running;
        f.received = nullptr;
        f.waited = false;
        f.suspended = context::fiber(std::allocator_arg, PooledStack{&fiber_stacks}, [&b, &f](context::fiber&& back) {
            f.scheduler = std::move(back);
            (*b.body)();
            check_waited(f, "its end");
            f.wait = Wait::Exited;
            return std::move(f.scheduler);
        });
    }
    std::fill(b.shared.begin(), b.shared.end(), static_cast<unsigned char>(0xff));
    const size_t n = b.fibers.size();
    for (;;) {
        for (size_t i = 0; i < n; ++i) {
            Fiber& f = b.fibers[reversed ? n - 1 - i : i];
            if (f.wait == Wait::Running) {
                b.running = &f;
                running_thread = &f.index;
                f.suspended = std::move(f.suspended).resume();
            }
        }
        b.running = nullptr;
        running_thread = nullptr;
        b.snapshots.clear();  // every fiber released last round has read its snapshot by now
        size_t exited = 0, at_barrier = 0;
        for (const Fiber& f : b.fibers) {
            exited += f.wait == Wait::Exited;
            at_barrier += f.wait == Wait::Block;
        }
        if (exited == b.fibers.size())
            return;
        bool released = false;
        for (size_t w = 0; w * kWarpSize < b.fibers.size(); ++w)
            released |= release_warp(b, w);
        if (!released && at_barrier + exited == b.fibers.size()) {
            check_same_barrier(b);
            // Threads that exited count as arrived, as on the hardware.
            for (Fiber& f : b.fibers)
                if (f.wait == Wait::Block)
                    f.wait = Wait::Running;
            released = true;
        }
        if (!released)
            report_deadlock(b);
    }
}

} // namespace

void* dynamic_shared_memory()
{
    running();
    return t_block->shared.empty() ? nullptr : t_block->shared.data();
}

void sync_block(const std::source_location& site)
{
    Fiber& f = running();
    check_waited(f, "__syncthreads");
    f.wait = Wait::Block;
    f.barrier = site;
    yield(f);
}

const unsigned char* exchange_in_warp(const char* operation, unsigned mask, const void* value, size_t bytes)
{
    Fiber& f = running();
    check_waited(f, operation);
    if (!(mask >> current_lane() & 1u))
        kernel_fault(std::string(operation) + " with mask " + mask_text(mask) + " called by lane " +
                     std::to_string(current_lane()) + ", which the mask leaves out, at " + where(f));
    f.published.fill(0xff);
    std::memcpy(f.published.data(), value, bytes);
    f.wait = Wait::Warp;
    f.operation = operation;
    f.mask = mask;
    yield(f);
    return f.received;
}

void wait_for_prior_grids()
{
    // Grids run one after another here: the one before has ended.
    running().waited = true;
}

void prefetch_to_l2(const void* data, size_t bytes)
{
    EmulatedDevice& device = EmulatedDevice::instance();
    if (!device.is_device(data, bytes))
        kernel_fault("prefetch_to_l2 of " + std::to_string(bytes) + " bytes outside device memory, at " +
                     where(running()));
    device.note_prefetch(data, bytes);
}

void run_grid(const void* kernel, dim3 grid, dim3 block, size_t shared_bytes, bool overlapped,
              const std::function<void()>& thread_body)
{
    Block b;
    b.kernel = kernel;
    b.overlapped = overlapped;
    b.body = &thread_body;
    b.shared.resize(shared_bytes);
    const size_t threads = static_cast<size_t>(block.x) * block.y * block.z;
    b.fibers.resize(threads);
    b.snapshots.reserve(threads);
    t_block = &b;
    // A GPU runs blocks in no promised order: every other launch runs them last to first, so
    // a kernel whose result depends on the order (one block reading what another wrote, float
    // atomics summed in a different order) differs between launches here too.
    static unsigned launches = 0;
    const bool blocks_reversed = launches++ % 2 == 1;
    const size_t blocks = static_cast<size_t>(grid.x) * grid.y * grid.z;
    for (size_t k = 0; k < blocks; ++k) {
        const size_t linear = blocks_reversed ? blocks - 1 - k : k;
        const unsigned bx = linear % grid.x, by = linear / grid.x % grid.y, bz = linear / grid.x / grid.y;
        size_t i = 0;
        for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
                for (unsigned tx = 0; tx < block.x; ++tx, ++i)
                    b.fibers[i].index =
                        ThreadIndex{{tx, ty, tz}, {bx, by, bz}, block, grid, static_cast<unsigned>(i % kWarpSize)};
        run_block(b, (bx + by + bz) % 2 == 1);
    }
    t_block = nullptr;
}

void kernel_fault(const std::string& what)
{
    std::fprintf(stderr, "CUDA emulation: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

} // namespace pyramid::cuda::emulation
