#include "kas/sampler.h"

#include <unordered_set>

namespace opevo::kas {

namespace {

constexpr PrimitiveKind kUnary[] = {PrimitiveKind::Group,
                                    PrimitiveKind::GroupEach,
                                    PrimitiveKind::Shift,
                                    PrimitiveKind::Unfold,
                                    PrimitiveKind::FullyConnected,
                                    PrimitiveKind::GroupedFc,
                                    PrimitiveKind::Relu,
                                    PrimitiveKind::Abs,
                                    PrimitiveKind::Sin,
                                    PrimitiveKind::Exp,
                                    PrimitiveKind::AvgFold,
                                    PrimitiveKind::MaxFold,
                                    PrimitiveKind::Softmax};
constexpr PrimitiveKind kBlends[] = {PrimitiveKind::Add, PrimitiveKind::Sub, PrimitiveKind::Mul,
                                     PrimitiveKind::Min, PrimitiveKind::Max};

struct Action {
  Node node;
  std::optional<Substitution> substitution;
};

// Steps that cannot make a better kernel than one without them.
bool redundant(const MicroDag& dag, const Node& n) {
  const Node& in = dag.nodes()[static_cast<std::size_t>(n.inputs[0])];
  auto rectifier = [](PrimitiveKind k) {
    return k == PrimitiveKind::Relu || k == PrimitiveKind::Abs;
  };
  if (isElementwise(n.kind) && (in.kind == n.kind || (rectifier(n.kind) && rectifier(in.kind))))
    return true;
  if (n.kind == PrimitiveKind::Softmax && in.kind == PrimitiveKind::Softmax && in.dim == n.dim)
    return true;
  // Two linear maps in a row are one linear map.
  if (isFc(n.kind) && isFc(in.kind)) return true;
  if (isBlend(n.kind)) {
    // Two copies of one computation: x - x, min(x, x), ...
    const Node& other = dag.nodes()[static_cast<std::size_t>(n.inputs[1])];
    if (in.kind == other.kind && in.inputs == other.inputs && in.dim == other.dim && !isFc(in.kind))
      return true;
  }
  return false;
}

void unaryActions(const MicroDag& dag, int from,
                  std::array<std::vector<Action>, kPrimitiveTypes>& out) {
  const Shape& shape = dag.shape(from);
  for (PrimitiveKind kind : kUnary) {
    const int dims = takesDim(kind) ? static_cast<int>(shape.size()) : 1;
    for (int d = 0; d < dims; ++d) {
      Node n{kind, {from}, takesDim(kind) ? d : -1, Symbol::X1};
      if (!unaryShape(kind, shape, n.dim, Symbol::X1) || redundant(dag, n)) continue;
      out[static_cast<std::size_t>(primitiveType(kind))].push_back(Action{n, std::nullopt});
    }
  }
}

void blendActions(const MicroDag& dag, const std::vector<int>& leaves,
                  std::array<std::vector<Action>, kPrimitiveTypes>& out) {
  auto& blends = out[static_cast<std::size_t>(PrimitiveType::Blend)];
  for (int a : leaves)
    for (int b : leaves) {
      if (a == b) continue;
      const auto options = blendOptions(dag.shape(a), dag.shape(b));
      for (PrimitiveKind kind : kBlends) {
        Node n{kind, {a, b}, -1, Symbol::X1};
        if (redundant(dag, n)) continue;
        for (const auto& option : options) blends.push_back(Action{n, option});
      }
    }
}

bool apply(MicroDag& dag, const Action& action) {
  MicroDag trial = dag;
  if (action.substitution && !trial.substitute(*action.substitution)) return false;
  if (!trial.add(action.node)) return false;
  dag = std::move(trial);
  return true;
}

// The last tensor made to read as [C, H, W]: by substituting its variable, or through a final fc
// whose size is then C.
bool finish(MicroDag& dag) {
  if (dag.leaves().size() != 1) return false;
  if (!outputLegal(dag.shape(dag.output()))) {
    if (auto s = outputSubstitution(dag.shape(dag.output())); s && dag.substitute(*s)) {
      // matched
    } else {
      Node fc{PrimitiveKind::FullyConnected, {dag.output()}, -1, Symbol::X1};
      if (isFc(dag.nodes().back().kind) || !dag.add(fc)) return false;
      const auto last = outputSubstitution(dag.shape(dag.output()));
      if (!last || !dag.substitute(*last)) return false;
    }
  }
  return dag.complete();
}

}  // namespace

std::optional<MicroDag> sampleKernel(Rng& rng, const SamplerOptions& options) {
  const std::size_t span = options.maxPrimitives - options.minPrimitives + 1;
  const std::size_t length = options.minPrimitives + rng.below(span);
  MicroDag dag;
  for (std::size_t step = 0; step < length; ++step) {
    const std::size_t remaining = length - step;
    const std::vector<int> leaves = dag.leaves();
    const std::size_t open = leaves.size();
    std::array<std::vector<Action>, kPrimitiveTypes> actions;
    // Each step must leave enough steps to merge what is open: a step on a leaf keeps the count,
    // a new branch from an inner tensor adds one, a blend of two leaves removes one.
    if (open - 1 <= remaining - 1)
      for (int leaf : leaves) unaryActions(dag, leaf, actions);
    if (open + 1 - 1 <= remaining - 1 && open < options.maxBranches)
      for (int from = 0; from <= dag.output(); ++from)
        if (std::find(leaves.begin(), leaves.end(), from) == leaves.end())
          unaryActions(dag, from, actions);
    if (open >= 2) blendActions(dag, leaves, actions);
    bool applied = false;
    while (!applied) {
      double total = 0;
      for (std::size_t t = 0; t < kPrimitiveTypes; ++t)
        if (!actions[t].empty()) total += options.weights[t];
      if (total <= 0) return std::nullopt;
      double r = rng.uniform() * total;
      std::size_t type = 0;
      for (; type < kPrimitiveTypes; ++type) {
        if (actions[type].empty()) continue;
        r -= options.weights[type];
        if (r < 0) break;
      }
      if (type == kPrimitiveTypes) type = kPrimitiveTypes - 1;
      while (actions[type].empty()) --type;
      auto& list = actions[type];
      const std::size_t pick = rng.below(list.size());
      applied = apply(dag, list[pick]);
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(pick));
    }
  }
  if (!finish(dag)) return std::nullopt;
  return dag;
}

std::vector<MicroDag> sampleDistinct(std::uint64_t seed, std::size_t count,
                                     const SamplerOptions& options,
                                     const std::function<bool(const MicroDag&)>& accept,
                                     SampleStats* stats) {
  Rng rng(seed);
  SampleStats local;
  std::vector<MicroDag> out;
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t draw = 0; out.size() < count && draw < count * 50; ++draw) {
    ++local.attempts;
    std::optional<MicroDag> dag = sampleKernel(rng, options);
    if (!dag || (accept && !accept(*dag))) {
      ++local.deadEnds;
      continue;
    }
    if (!seen.insert(dag->canonicalHash()).second) {
      ++local.duplicates;
      continue;
    }
    out.push_back(std::move(*dag));
  }
  if (stats) *stats = local;
  return out;
}

}  // namespace opevo::kas
