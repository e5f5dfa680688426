#include "net/task_templates.h"

#include <algorithm>

#include "common/error.h"

namespace opevo::net {

std::string TaskTemplates::name() const {
  if (winograd && matvec) return "winograd+matvec";
  return winograd ? "winograd" : matvec ? "matvec" : "direct";
}

TaskTemplates parseTaskTemplates(const std::string& text, const std::string& where) {
  TaskTemplates t;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find_first_of("+,", begin), text.size());
    const std::string word = text.substr(begin, end - begin);
    if (word == "winograd")
      t.winograd = true;
    else if (word == "matvec")
      t.matvec = true;
    else if (word != "direct" || text != "direct")
      throw InputError((where.empty() ? "" : where + ": ") + "unknown network template '" + text +
                       "' (direct, winograd, matvec, or winograd+matvec)");
    begin = end + 1;
  }
  return t;
}

TaskTemplates defaultTaskTemplates(std::string_view backend) {
  TaskTemplates t;
  t.matvec = backend == "cuda" || backend == "hip";
  return t;
}

TaskTemplates chosenTaskTemplates(const std::optional<std::string>& asked, std::string_view backend,
                                  const std::string& where) {
  return asked ? parseTaskTemplates(*asked, where) : defaultTaskTemplates(backend);
}

}  // namespace opevo::net
