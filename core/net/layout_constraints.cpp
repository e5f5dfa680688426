#include "net/layout_constraints.h"

#include <algorithm>
#include <map>
#include <memory>

#include "common/enum_names.h"
#include "common/rng.h"
#include "layout/conv2d_layout.h"
#include "space/factor_param.h"

namespace opevo::net {
namespace {

constexpr EnumNames<ConstraintOutcome, 2> kOutcomeNames{
    {{{ConstraintOutcome::Applied, "applied"},
      {ConstraintOutcome::NoValidConfiguration, "no-valid-configuration"}}}};

constexpr EnumNames<LinkKind, 2> kLinkNames{
    {{{LinkKind::Residual, "residual"}, {LinkKind::DepthwiseInput, "depthwise-input"}}}};

// Every tensor a task writes -> that task.
std::map<std::string, std::size_t> writers(const TaskGraph& graph) {
  std::map<std::string, std::size_t> writer;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    for (const Occurrence& o : graph.tasks[i].occurrences) writer[o.output] = i;
  return writer;
}

// Draws that look for one valid configuration of a narrowed space without a start point; the
// layout template's constraints reject few of them.
constexpr int kValidTries = 20000;

// The output layout parameters of a task's space (only Conv2D tasks tune layouts in a network).
std::vector<std::size_t> outputLayoutParams(const Task& task, const SearchSpace& space) {
  std::vector<std::size_t> at;
  if (task.op.kind != OpKind::Conv2D) return at;
  for (const char* name : layout::kConv2DOutputLayoutParams) {
    const int i = space.indexOf(name);
    if (i < 0 || space.param(std::size_t(i)).kind() != ParamKind::Factor) return {};
    at.push_back(std::size_t(i));
  }
  return at;
}

// Splits of one length into as many parts: the same logical dim of two output tensors of one shape.
bool sameSplit(const opevo::Parameter& a, const opevo::Parameter& b) {
  const auto& fa = static_cast<const FactorParam&>(a);
  const auto& fb = static_cast<const FactorParam&>(b);
  return fa.product() == fb.product() && fa.parts() == fb.parts();
}

// The earlier task's configuration with the values of `task` space's parameters that have the
// same name and values as there copied over `base` (its register tiles, which fit its layout).
Config withLoopsOf(const SearchSpace& space, Config base, const SearchSpace& earlier,
                   const Config& chosen) {
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const int k = earlier.indexOf(space.param(i).name());
    if (k >= 0 && space.param(i).contains(chosen[std::size_t(k)])) base[i] = chosen[std::size_t(k)];
  }
  return base;
}

}  // namespace

std::string_view constraintOutcomeName(ConstraintOutcome outcome) {
  return kOutcomeNames.name(outcome);
}

std::string_view linkKindName(LinkKind kind) {
  return kLinkNames.name(kind);
}

std::vector<ResidualLink> residualLinks(const TaskGraph& graph) {
  const std::map<std::string, std::size_t> writer = writers(graph);
  std::vector<ResidualLink> links;
  for (std::size_t reader = 0; reader < graph.tasks.size(); ++reader)
    for (const Occurrence& o : graph.tasks[reader].occurrences)
      for (const std::string& residual : o.residuals) {
        const auto it = writer.find(residual);
        // A residual of the task's own output is in its layout already.
        if (it == writer.end() || it->second == reader) continue;
        const bool known = std::any_of(links.begin(), links.end(), [&](const ResidualLink& l) {
          return l.writer == it->second && l.reader == reader;
        });
        if (!known) links.push_back({it->second, reader, residual});
      }
  return links;
}

std::vector<DepthwiseLink> depthwiseLinks(const TaskGraph& graph) {
  const std::map<std::string, std::size_t> writer = writers(graph);
  std::vector<DepthwiseLink> links;
  for (std::size_t reader = 0; reader < graph.tasks.size(); ++reader) {
    if (!layout::isDepthwise(graph.tasks[reader].op)) continue;
    for (const Occurrence& o : graph.tasks[reader].occurrences) {
      const auto it = writer.find(o.input);
      if (it == writer.end() || it->second == reader) continue;
      links.push_back({it->second, reader, o.input});
      break;
    }
  }
  return links;
}

std::optional<LayoutConstraint> constrainOutputLayout(
    const TaskGraph& graph, std::size_t task, const std::vector<std::size_t>& before,
    const std::vector<const SearchSpace*>& spaces, const std::vector<std::optional<Config>>& best,
    SearchSpace& space, std::uint64_t seed, bool pinDepthwise) {
  const std::vector<std::size_t> mine = outputLayoutParams(graph.tasks[task], space);
  if (mine.empty()) return std::nullopt;
  const std::vector<ResidualLink> residuals = residualLinks(graph);
  const std::vector<DepthwiseLink> depthwise =
      pinDepthwise ? depthwiseLinks(graph) : std::vector<DepthwiseLink>{};
  for (std::size_t earlier : before) {
    if (!best[earlier]) continue;  // nothing chosen there: it constrains nothing
    const SearchSpace& other = *spaces[earlier];
    const std::vector<std::size_t> theirs = outputLayoutParams(graph.tasks[earlier], other);
    if (theirs.empty()) continue;
    const auto linked = [&](const auto& l) {
      return (l.writer == earlier && l.reader == task) || (l.reader == earlier && l.writer == task);
    };
    // A residual ties the whole output layout; a depthwise convolution's input its channel
    // blocking alone (kConv2DOutputLayoutParams' first), its rows and columns being padded and
    // windowed whatever either task chose.
    std::size_t pinned = 0;
    std::string tensor;
    LinkKind kind = LinkKind::Residual;
    if (const auto r = std::find_if(residuals.begin(), residuals.end(), linked);
        r != residuals.end()) {
      pinned = mine.size();
      tensor = r->tensor;
    } else if (const auto d = std::find_if(depthwise.begin(), depthwise.end(), linked);
               d != depthwise.end()) {
      pinned = 1;
      tensor = d->tensor;
      kind = LinkKind::DepthwiseInput;
    } else {
      continue;
    }
    bool fits = true;
    for (std::size_t k = 0; k < pinned && fits; ++k)
      fits = sameSplit(space.param(mine[k]), other.param(theirs[k]));
    if (!fits) continue;

    LayoutConstraint c{task, earlier, tensor, {}, ConstraintOutcome::Applied, kind};
    SearchSpace narrowed = space;
    Config start = space.startPoint() ? *space.startPoint() : space.first();
    for (std::size_t k = 0; k < pinned; ++k) {
      const auto& p = static_cast<const FactorParam&>(space.param(mine[k]));
      const Vertex& chosen = (*best[earlier])[theirs[k]];
      narrowed.replace(mine[k],
                       std::make_shared<FactorParam>(p.name(), p.product(), p.parts(), chosen));
      start[mine[k]] = chosen;
      c.layout += (c.layout.empty() ? "" : "; ") + p.name() + "=" + p.format(chosen);
    }
    // The task's own start blocking around the imposed layout, else with the earlier task's
    // loops (they fit that layout), else none: the tuners then draw valid configurations.
    if (!narrowed.startPoint()) {
      for (const Config& candidate : {start, withLoopsOf(narrowed, start, other, *best[earlier])})
        if (narrowed.contains(candidate) && narrowed.satisfies(candidate)) {
          narrowed.setStartPoint(candidate);
          break;
        }
    }
    Rng rng(seed);
    if (!narrowed.startPoint() && !narrowed.randomValid(rng, kValidTries)) {
      c.outcome = ConstraintOutcome::NoValidConfiguration;
      return c;
    }
    space = std::move(narrowed);
    return c;
  }
  return std::nullopt;
}

nlohmann::json layoutConstraintJson(const TaskGraph& graph,
                                    const std::optional<LayoutConstraint>& c) {
  if (!c) return nullptr;
  return {{"by", graph.tasks.at(c->by).name},
          {"tensor", c->tensor},
          {"link", linkKindName(c->link)},
          {"output_layout", c->layout},
          {"outcome", constraintOutcomeName(c->outcome)},
          {"applied", c->outcome == ConstraintOutcome::Applied}};
}

}  // namespace opevo::net
