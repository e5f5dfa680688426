#include "space/enumerate.h"

#include "common/error.h"
#include "space/param_graph.h"

namespace opevo {

void forEachConfig(const SearchSpace& space, std::size_t maxPoints,
                   const std::function<bool(const Config&)>& visit) {
  const Count size = space.size();
  if (!(size <= maxPoints))
    throw InputError("the search space has " + size.toString() +
                     " points; enumerating it is limited to " + std::to_string(maxPoints));
  std::vector<std::vector<Vertex>> values;
  for (std::size_t i = 0; i < space.dims(); ++i)
    values.push_back(allVertices(space.param(i), maxPoints));
  std::vector<std::size_t> digit(space.dims(), 0);
  Config c;
  for (std::size_t i = 0; i < space.dims(); ++i) c.push_back(values[i][0]);
  while (true) {
    if (!visit(c)) return;
    std::size_t i = space.dims();
    while (i > 0) {
      --i;
      if (++digit[i] < values[i].size()) {
        c[i] = values[i][digit[i]];
        break;
      }
      digit[i] = 0;
      c[i] = values[i][0];
      if (i == 0) return;
    }
    if (space.dims() == 0) return;
  }
}

}  // namespace opevo
