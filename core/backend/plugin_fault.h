#pragma once
// How a failure crosses the boundary of the backend plugin (backend_loader.h): as a value,
// never as a C++ exception. The library wraps its backend so that every call runs inside a
// catch-all that writes what was thrown into a PluginFault the engine handed it, and returns
// an empty result (fault_catching_backend). The engine wraps what it gets back so that after
// every call it reads the fault and throws its own exception of the same kind
// (fault_raising_backend). The KV stores the backend makes are wrapped the same way, since
// reserving room in one is where memory runs out.
//
// So no exception unwinds through the library's frames into the engine's, and one whose type
// the engine does not share (the library keeps its copy of core private) arrives as the type
// the engine catches: KvMemoryExhausted stays KvMemoryExhausted, a cancel stays Cancelled.
#include <memory>

#include "backend/backend.h"

namespace pyramid {

enum class PluginFaultKind : int {
    None = 0,
    Error,              // pyramid::Error or any other exception: its message
    KvMemoryExhausted,  // a cache could not grow (kv_block_allocator.h)
    Cancelled,          // the cancel flag was seen
    OutOfMemory,        // std::bad_alloc on the library's side
};

// Written by the library, read and cleared by the engine; one per backend, used by one thread
// at a time as the backend itself is.
struct PluginFault {
    PluginFaultKind kind = PluginFaultKind::None;
    char message[1024] = {};
};

// Library side: `backend` with every call (and every call of the stores it makes) caught into
// `*fault`, which must outlive it. Calls that fail return an empty value.
std::unique_ptr<Backend> fault_catching_backend(std::unique_ptr<Backend> backend, PluginFault* fault);

// Engine side: the library's backend, made with `fault` as its fault, throwing after any call
// (and any call of its stores) what the fault holds: KvMemoryExhausted, Cancelled,
// std::bad_alloc, or pyramid::Error with the library's message.
std::unique_ptr<Backend> fault_raising_backend(std::unique_ptr<Backend> plugin_backend,
                                               std::unique_ptr<PluginFault> fault);

} // namespace pyramid
