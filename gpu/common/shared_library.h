#pragma once

#include <dlfcn.h>

#include <memory>
#include <string>
#include <vector>

namespace opevo {

// A library opened with dlopen; it stays loaded for the process's lifetime (GPU runtimes keep
// threads and handlers behind that would dangle after dlclose).
class SharedLibrary {
 public:
  // Opens the first candidate that loads and exports `requiredSymbol`. On failure returns null
  // and appends each candidate's name to *tried, with the loader's reason unless it simply was
  // not found.
  static std::unique_ptr<SharedLibrary> openFirst(const std::vector<std::string>& candidates,
                                                  const char* requiredSymbol,
                                                  std::string* tried = nullptr) {
    for (const std::string& name : candidates) {
      void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      const char* error = handle ? nullptr : dlerror();
      if (handle && !dlsym(handle, requiredSymbol)) {
        error = "lacks the expected entry points";
        dlclose(handle);
        handle = nullptr;
      }
      if (handle) return std::unique_ptr<SharedLibrary>(new SharedLibrary(handle, name));
      if (!tried) continue;
      const std::string reason = error ? error : "?";
      *tried += (tried->empty() ? "" : ", ") + name;
      if (reason.find("No such file") == std::string::npos) *tried += " (" + reason + ")";
    }
    return nullptr;
  }

  const std::string& name() const { return m_name; }

  // The symbol cast to the function pointer type F, or null.
  template <class F>
  F symbol(const char* name) const {
    return reinterpret_cast<F>(dlsym(m_handle, name));
  }

 private:
  SharedLibrary(void* handle, std::string name) : m_handle(handle), m_name(std::move(name)) {}
  void* m_handle;
  std::string m_name;
};

}  // namespace opevo
