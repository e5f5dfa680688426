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

constexpr EnumNames<LinkKind, 3> kLinkNames{{{{LinkKind::Residual, "residual"},
                                              {LinkKind::DepthwiseInput, "depthwise-input"},
                                              {LinkKind::Input, "input"}}}};

constexpr EnumNames<LinkKind, 3> kLinkPins{{{{LinkKind::Residual, "output layout"},
                                             {LinkKind::DepthwiseInput, "channel blocks"},
                                             {LinkKind::Input, "input layout"}}}};

// Draws that look for one valid configuration of a narrowed space without a start point; the
// layout template's constraints reject few of them.
constexpr int kValidTries = 20000;

// A factorization parameter of the space by name; nullopt when it has none.
std::optional<std::size_t> factorParam(const SearchSpace& space, const char* name) {
  const int i = space.indexOf(name);
  if (i < 0 || space.param(std::size_t(i)).kind() != ParamKind::Factor) return std::nullopt;
  return std::size_t(i);
}

// The output layout parameters of a task's space (only Conv2D tasks tune layouts in a network).
std::vector<std::size_t> outputLayoutParams(const Task& task, const SearchSpace& space) {
  std::vector<std::size_t> at;
  if (task.op.kind != OpKind::Conv2D) return at;
  for (const char* name : layout::kConv2DOutputLayoutParams) {
    const std::optional<std::size_t> i = factorParam(space, name);
    if (!i) return {};
    at.push_back(*i);
  }
  return at;
}

// One parameter of the task's space a link fixes, and its value.
struct Pin {
  std::size_t param = 0;
  Vertex value;
};

// A link to an earlier task that can pin the task: what it pins and the size of the tensor whose
// conversion it saves.
struct Candidate {
  std::size_t earlier = 0;
  LinkKind kind = LinkKind::Residual;
  std::string tensor;
  std::int64_t elements = 0;
  std::vector<Pin> pins;
};

// Pins the task's parameters `mine` to the earlier task's chosen values of `theirs`, where each
// of those values is one of the task's parameter's (the same split of the same length); nullopt
// where one is not.
std::optional<std::vector<Pin>> samePins(const SearchSpace& space,
                                         const std::vector<std::size_t>& mine, const Config& chosen,
                                         const std::vector<std::size_t>& theirs) {
  std::vector<Pin> pins;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const Vertex& v = chosen[theirs[k]];
    if (!space.param(mine[k]).contains(v)) return std::nullopt;
    pins.push_back({mine[k], v});
  }
  return pins;
}

// A 1x1 reader's pins to its producer's chosen output layout (layout::kProducerReadings): nullopt
// where the reader's parameters cannot take them.
std::optional<std::vector<Pin>> inputPins(const SearchSpace& space, const SearchSpace& producer,
                                          const Config& chosen, std::int64_t stride) {
  std::vector<Pin> pins;
  for (const layout::ProducerReading& reading : layout::kProducerReadings) {
    const std::optional<std::size_t> r = factorParam(space, reading.reader),
                                     w = factorParam(producer, reading.writer);
    if (!r || !w) return std::nullopt;
    std::optional<Vertex> v = layout::readProducerValue(reading, chosen[*w], stride);
    if (!v || !space.param(*r).contains(*v)) return std::nullopt;
    pins.push_back({*r, std::move(*v)});
  }
  return pins;
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

// The pins as the space formats them: "layout.in_c=3,16; layout.out_h=...".
std::string pinsText(const SearchSpace& space, const std::vector<Pin>& pins) {
  std::string text;
  for (const Pin& pin : pins)
    text += (text.empty() ? "" : "; ") + space.param(pin.param).name() + "=" +
            space.param(pin.param).format(pin.value);
  return text;
}

// Narrows `space` to the candidate's pins, with a start point: the task's own start blocking
// around the imposed layout, else with the earlier task's loops (they fit that layout), else
// none (the tuners then draw valid configurations). False where the narrowed space has no valid
// configuration (`space` is then half narrowed: the caller drops it).
bool applyPins(const Candidate& c, const std::vector<const SearchSpace*>& spaces,
               const std::vector<std::optional<Config>>& best, SearchSpace& space,
               std::uint64_t seed) {
  Config start = space.startPoint() ? *space.startPoint() : space.first();
  for (const Pin& pin : c.pins) {
    const auto& p = static_cast<const FactorParam&>(space.param(pin.param));
    space.replace(pin.param,
                  std::make_shared<FactorParam>(p.name(), p.product(), p.parts(), pin.value));
    start[pin.param] = pin.value;
  }
  if (!space.startPoint()) {
    const SearchSpace& other = *spaces[c.earlier];
    for (const Config& candidate : {start, withLoopsOf(space, start, other, *best[c.earlier])})
      if (space.contains(candidate) && space.satisfies(candidate)) {
        space.setStartPoint(candidate);
        break;
      }
  }
  Rng rng(seed);
  return space.startPoint() || space.randomValid(rng, kValidTries);
}

}  // namespace

std::string_view constraintOutcomeName(ConstraintOutcome outcome) {
  return kOutcomeNames.name(outcome);
}

std::string_view linkKindName(LinkKind kind) {
  return kLinkNames.name(kind);
}

std::string_view linkPinsText(LinkKind kind) {
  return kLinkPins.name(kind);
}

std::vector<ResidualLink> residualLinks(const TaskGraph& graph) {
  const std::map<std::string, std::size_t> writer = tensorWriters(graph);
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
  const std::map<std::string, std::size_t> writer = tensorWriters(graph);
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

std::vector<InputLink> inputLinks(const TaskGraph& graph) {
  const std::map<std::string, std::size_t> writer = tensorWriters(graph);
  std::vector<InputLink> links;
  for (std::size_t reader = 0; reader < graph.tasks.size(); ++reader) {
    const OperatorSpec& op = graph.tasks[reader].op;
    if (!layout::readsProducerLayout(op)) continue;
    for (const Occurrence& o : graph.tasks[reader].occurrences) {
      const auto it = writer.find(o.input);
      if (it == writer.end() || it->second == reader) continue;
      links.push_back({it->second, reader, o.input, op.stride});
      break;
    }
  }
  return links;
}

std::optional<LayoutConstraint> constrainLayout(const TaskGraph& graph, std::size_t task,
                                                const std::vector<std::size_t>& before,
                                                const std::vector<const SearchSpace*>& spaces,
                                                const std::vector<std::optional<Config>>& best,
                                                SearchSpace& space, std::uint64_t seed,
                                                PinnedLinks pinned) {
  const std::vector<std::size_t> mine = outputLayoutParams(graph.tasks[task], space);
  if (mine.empty()) return std::nullopt;
  const std::vector<ResidualLink> residuals = residualLinks(graph);
  const std::vector<DepthwiseLink> depthwise =
      pinned.depthwise ? depthwiseLinks(graph) : std::vector<DepthwiseLink>{};
  const std::vector<InputLink> inputs = pinned.input ? inputLinks(graph) : std::vector<InputLink>{};
  std::vector<Candidate> candidates;
  for (std::size_t earlier : before) {
    if (!best[earlier]) continue;  // nothing chosen there: it constrains nothing
    const SearchSpace& other = *spaces[earlier];
    const std::vector<std::size_t> theirs = outputLayoutParams(graph.tasks[earlier], other);
    if (theirs.empty()) continue;
    const Config& chosen = *best[earlier];
    const auto linked = [&](const auto& l) {
      return (l.writer == earlier && l.reader == task) || (l.reader == earlier && l.writer == task);
    };
    // A residual ties the whole output layout (the task's output is the residual's shape); a
    // depthwise convolution's input its channel blocking alone (kConv2DOutputLayoutParams'
    // first): its own rows and columns are its output's, not its input's.
    if (const auto r = std::find_if(residuals.begin(), residuals.end(), linked);
        r != residuals.end())
      if (auto pins = samePins(space, mine, chosen, theirs))
        candidates.push_back({earlier, LinkKind::Residual, r->tensor,
                              graph.tasks[task].op.outputElements(), std::move(*pins)});
    if (const auto d = std::find_if(depthwise.begin(), depthwise.end(), linked);
        d != depthwise.end())
      if (auto pins = samePins(space, {mine[0]}, chosen, {theirs[0]}))
        candidates.push_back({earlier, LinkKind::DepthwiseInput, d->tensor,
                              graph.tasks[d->writer].op.outputElements(), std::move(*pins)});
    // A 1x1 reader tuned after its producer (only that way round).
    if (const auto i = std::find_if(
            inputs.begin(), inputs.end(),
            [&](const InputLink& l) { return l.writer == earlier && l.reader == task; });
        i != inputs.end())
      if (auto pins = inputPins(space, other, chosen, i->stride))
        candidates.push_back({earlier, LinkKind::Input, i->tensor,
                              graph.tasks[earlier].op.outputElements(), std::move(*pins)});
  }
  if (candidates.empty()) return std::nullopt;
  // With 1x1 inputs pinned, the larger conversion saved decides; on equal sizes a residual (the
  // link pinned before the others were), then a depthwise input, then the first task tuned
  // (stable_sort keeps candidates, in tuning order, where they tie). Where the first leaves no
  // valid configuration, the next is tried. Without them, the first task tuned decides (a
  // residual before a depthwise input to one task), and only it is tried: as runs that do not
  // pin inputs always chose, so that a stored one resumes pinned as it was tuned.
  if (pinned.input) {
    const auto rank = [](LinkKind k) {
      return k == LinkKind::Residual ? 0 : k == LinkKind::DepthwiseInput ? 1 : 2;
    };
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const Candidate& a, const Candidate& b) {
                       if (a.elements != b.elements) return a.elements > b.elements;
                       return rank(a.kind) < rank(b.kind);
                     });
  } else {
    candidates.resize(1);
  }
  for (const Candidate& c : candidates) {
    SearchSpace narrowed = space;
    if (applyPins(c, spaces, best, narrowed, seed)) {
      space = std::move(narrowed);
      return LayoutConstraint{
          task, c.earlier, c.tensor, pinsText(space, c.pins), ConstraintOutcome::Applied, c.kind};
    }
  }
  const Candidate& first = candidates.front();
  return LayoutConstraint{task,
                          first.earlier,
                          first.tensor,
                          pinsText(space, first.pins),
                          ConstraintOutcome::NoValidConfiguration,
                          first.kind};
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
