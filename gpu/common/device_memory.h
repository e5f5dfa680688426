#pragma once

// The error type and the scoped allocation shared by the CUDA and HIP runtime wrappers.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace opevo {

// A failed runtime call. what() starts with the call's name ("cuLaunchKernel: ...",
// "hipModuleLaunchKernel: ..."), which is how a launch error is told from a runtime fault.
class DeviceError : public std::runtime_error {
 public:
  DeviceError(int code, const std::string& what) : std::runtime_error(what), m_code(code) {}
  int code() const { return m_code; }

 private:
  int m_code;
};

// A device allocation freed on scope exit.
template <class Api>
class DeviceBuffer {
 public:
  DeviceBuffer(Api& api, std::size_t bytes)
      : m_api(api), m_ptr(bytes ? api.alloc(bytes) : 0), m_bytes(bytes) {}
  ~DeviceBuffer() {
    if (m_ptr) m_api.free(m_ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::uint64_t get() const { return m_ptr; }
  std::uint64_t* address() { return &m_ptr; }  // kernel argument
  std::size_t bytes() const { return m_bytes; }

 private:
  Api& m_api;
  std::uint64_t m_ptr;
  std::size_t m_bytes;
};

}  // namespace opevo
