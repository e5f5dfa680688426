#pragma once

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "common/device_memory.h"

// Host memory and the host clock standing in for a device, with the calls DeviceOperands,
// verifyOnDevice and timeOnDevice make: the worker's path, tested without a GPU.
struct HostApi {
  struct Device {
    std::int64_t l2Bytes = 0;
  };
  std::uint64_t alloc(std::size_t bytes) {
    return reinterpret_cast<std::uint64_t>(new char[bytes]);
  }
  void free(std::uint64_t p) noexcept { delete[] reinterpret_cast<char*>(p); }
  void copyToDevice(std::uint64_t dst, const void* src, std::size_t bytes) {
    std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  }
  void copyToHost(void* dst, std::uint64_t src, std::size_t bytes) {
    std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  }
  void memset32(std::uint64_t p, unsigned value, std::size_t count) {
    std::fill_n(reinterpret_cast<unsigned*>(p), count, value);
  }
  void memset8(std::uint64_t p, unsigned char value, std::size_t count) {
    std::memset(reinterpret_cast<void*>(p), value, count);
  }
  void synchronize() {}
  // Modules are shared objects of emulated kernels (gpu_emulation.h) taking `void** args`: the
  // image is the object's path, and a kernel's function is its emu_ entry, launched as built.
  void* loadModule(const std::string& path) {
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module) throw opevo::DeviceError(200, std::string("dlopen: ") + dlerror());
    return module;
  }
  void unloadModule(void* module) noexcept { dlclose(module); }
  void* getFunction(void* module, const std::string& name) {
    return dlsym(module, ("emu_" + name).c_str());
  }
  void launch(void* f, const unsigned*, const unsigned*, unsigned, void** args) {
    ++launches;
    reinterpret_cast<void (*)(void**)>(f)(args);
  }
  int launches = 0;
  const Device& device() const { return m_device; }
  // An event is the time it was recorded at; runs are synchronous here.
  void* createEvent() { return new std::chrono::steady_clock::time_point(); }
  void destroyEvent(void* e) { delete static_cast<std::chrono::steady_clock::time_point*>(e); }
  void record(void* e) {
    *static_cast<std::chrono::steady_clock::time_point*>(e) = std::chrono::steady_clock::now();
  }
  void waitEvent(void*) {}
  double elapsedMs(void* start, void* end) {
    return std::chrono::duration<double, std::milli>(
               *static_cast<std::chrono::steady_clock::time_point*>(end) -
               *static_cast<std::chrono::steady_clock::time_point*>(start))
        .count();
  }

 private:
  Device m_device;
};
