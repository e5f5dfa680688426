#include "ui/jobs/graphviz.h"

#include <string>

namespace opevo::ui::graphviz {

std::mutex& mutex() {
  static std::mutex m;
  return m;
}

GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

void setDefault(Agraph_t* g, int kind, const char* name, const char* value) {
  // cgraph's API takes char* for names it copies; a local buffer keeps the casts honest.
  std::string n(name), v(value);
  agattr(g, kind, n.data(), v.data());
}

}  // namespace opevo::ui::graphviz
