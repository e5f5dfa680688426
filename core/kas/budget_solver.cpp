#include "kas/budget_solver.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kas/share_text.h"

namespace opevo::kas {

double ConvTarget::flops() const {
  return 2.0 * static_cast<double>(channels * channels * kernelH * kernelW * height * width);
}

double ConvTarget::params() const {
  return static_cast<double>(channels * channels * kernelH * kernelW);
}

Bindings targetBindings(const ConvTarget& t, std::int64_t groups) {
  Bindings b{};
  b.fill(1);
  b[static_cast<std::size_t>(Symbol::C)] = t.channels;
  b[static_cast<std::size_t>(Symbol::H)] = t.height;
  b[static_cast<std::size_t>(Symbol::W)] = t.width;
  b[static_cast<std::size_t>(Symbol::KH)] = t.kernelH;
  b[static_cast<std::size_t>(Symbol::KW)] = t.kernelW;
  b[static_cast<std::size_t>(Symbol::G)] = groups;
  return b;
}

std::vector<std::int64_t> groupChoices(const std::vector<ConvTarget>& targets) {
  std::int64_t g = 0;
  for (const ConvTarget& t : targets) g = std::gcd(g, t.channels);
  std::vector<std::int64_t> out;
  for (std::int64_t d = 2; d <= g; ++d)
    if (g % d == 0) out.push_back(d);
  return out;
}

std::optional<LayerCost> layerCost(const MicroDag& dag, const Bindings& bindings) {
  LayerCost cost;
  for (const Shape& shape : dag.shapes()) {
    std::vector<std::int64_t> dims;
    for (const Dim& d : shape) {
      const Size::Fraction f = d.size.evaluate(bindings);
      if (f.den != 1 || f.num < 1) return std::nullopt;
      dims.push_back(f.num);
    }
    cost.shapes.push_back(std::move(dims));
  }
  auto numel = [](const std::vector<std::int64_t>& dims) {
    return std::accumulate(dims.begin(), dims.end(), 1.0,
                           [](double a, std::int64_t b) { return a * static_cast<double>(b); });
  };
  // Channel elements of a node: the product of its channel dims.
  auto channels = [&](std::size_t node) {
    double c = 1;
    const Shape& shape = dag.shapes()[node];
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (shape[k].role == DimRole::Channel) c *= static_cast<double>(cost.shapes[node][k]);
    return c;
  };
  for (std::size_t i = 1; i < dag.nodes().size(); ++i) {
    const Node& n = dag.nodes()[i];
    const auto in = static_cast<std::size_t>(n.inputs[0]);
    const double out = numel(cost.shapes[i]);
    switch (primitiveType(n.kind)) {
      case PrimitiveType::Fc: {
        // Each output element reads every input channel of its group.
        const double groups =
            n.kind == PrimitiveKind::GroupedFc ? static_cast<double>(cost.shapes[in][0]) : 1;
        const double perOutput = channels(in) / groups;
        cost.flops += 2 * out * perOutput;
        cost.params += channels(in) * channels(i) / groups;
        break;
      }
      case PrimitiveType::Elementwise:
      case PrimitiveType::Blend:
        cost.flops += out;
        break;
      case PrimitiveType::Fold:
        cost.flops += numel(cost.shapes[in]);
        break;
      case PrimitiveType::Softmax:
        cost.flops += 3 * out;  // exp, sum, divide
        break;
      default:
        break;  // rearrangements only index
    }
  }
  return cost;
}

namespace {

std::int64_t lcm(std::int64_t a, std::int64_t b) {
  return a / std::gcd(a, b) * b;
}

}  // namespace

SolveResult solveBudget(const MicroDag& dag, const std::vector<ConvTarget>& targets,
                        std::int64_t groups, const Budget& budget) {
  if (targets.empty()) return {std::nullopt, "no convolution to replace"};
  const std::vector<Symbol> vars = dag.freeVariables();
  const std::vector<Size> constraints = dag.integralityConstraints();
  Solution s;
  s.groups = groups;
  for (const ConvTarget& t : targets) {
    s.convFlops += static_cast<double>(t.count) * t.flops();
    s.convParams += static_cast<double>(t.count) * t.params();
  }
  // lcm_ij: what x_j must be a multiple of in layer i; fixed sizes must be whole there.
  std::vector<std::vector<std::int64_t>> step(targets.size(),
                                              std::vector<std::int64_t>(vars.size(), 1));
  std::vector<Bindings> bindings;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    bindings.push_back(targetBindings(targets[i], groups));
    for (const Size& c : constraints) {
      const auto x = c.variable();
      if (!x) {
        const Size::Fraction f = c.evaluate(bindings[i]);
        if (f.den != 1)
          return {std::nullopt, c.text() + " is not a whole number for " + targets[i].name +
                                    " (C=" + std::to_string(targets[i].channels) + ") with G = " +
                                    std::to_string(groups) + ", whatever the budget"};
        continue;
      }
      const auto j =
          static_cast<std::size_t>(std::find(vars.begin(), vars.end(), *x) - vars.begin());
      if (j == vars.size()) continue;
      step[i][j] = lcm(step[i][j], c.evaluateWithout(*x, bindings[i]).den);
    }
  }
  // Base values: proportional to C from the narrowest layer, which gets one step.
  const auto narrow =
      static_cast<std::size_t>(std::min_element(targets.begin(), targets.end(),
                                                [](const ConvTarget& a, const ConvTarget& b) {
                                                  return a.channels < b.channels;
                                                }) -
                               targets.begin());
  for (std::size_t i = 0; i < targets.size(); ++i)
    for (std::size_t j = 0; j < vars.size(); ++j) {
      const double k = static_cast<double>(targets[i].channels * step[narrow][j]) /
                       static_cast<double>(targets[narrow].channels * step[i][j]);
      bindings[i][static_cast<std::size_t>(vars[j])] =
          std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(k - 1e-9))) * step[i][j];
    }
  std::vector<LayerCost> costs(targets.size());
  auto total = [&](double LayerCost::*field) {
    double sum = 0;
    for (std::size_t i = 0; i < targets.size(); ++i)
      sum += static_cast<double>(targets[i].count) * costs[i].*field;
    return sum;
  };
  for (std::size_t i = 0; i < targets.size(); ++i) {
    auto c = layerCost(dag, bindings[i]);
    if (!c)
      return {std::nullopt,
              "a size is not a whole number for " + targets[i].name + ", whatever the budget"};
    costs[i] = std::move(*c);
  }
  const double maxFlops = budget.flops * s.convFlops, maxParams = budget.params * s.convParams;
  if (total(&LayerCost::flops) > maxFlops || total(&LayerCost::params) > maxParams)
    return {std::nullopt, "the smallest legal sizes already take " +
                              shareText(total(&LayerCost::flops) / s.convFlops) +
                              " of the convolutions' FLOPs and " +
                              shareText(total(&LayerCost::params) / s.convParams) +
                              " of their weights, over the budget of " + shareText(budget.flops) +
                              " and " + shareText(budget.params)};
  // Doubling, the cheapest first, while both budgets hold; a variable stops at 64 x C.
  for (bool grew = true; grew;) {
    grew = false;
    struct Move {
      double delta;
      std::size_t i, j;
      LayerCost cost;
    };
    std::vector<Move> moves;
    for (std::size_t i = 0; i < targets.size(); ++i)
      for (std::size_t j = 0; j < vars.size(); ++j) {
        auto& x = bindings[i][static_cast<std::size_t>(vars[j])];
        if (x * 2 > 64 * targets[i].channels) continue;
        x *= 2;
        auto c = layerCost(dag, bindings[i]);
        x /= 2;
        if (!c) continue;
        const double count = static_cast<double>(targets[i].count);
        const double delta = count * ((c->flops - costs[i].flops) / s.convFlops +
                                      (c->params - costs[i].params) / s.convParams);
        moves.push_back(Move{delta, i, j, std::move(*c)});
      }
    std::stable_sort(moves.begin(), moves.end(),
                     [](const Move& a, const Move& b) { return a.delta < b.delta; });
    for (Move& m : moves) {
      const double count = static_cast<double>(targets[m.i].count);
      const double flops = total(&LayerCost::flops) + count * (m.cost.flops - costs[m.i].flops);
      const double params = total(&LayerCost::params) + count * (m.cost.params - costs[m.i].params);
      if (flops > maxFlops || params > maxParams) continue;
      bindings[m.i][static_cast<std::size_t>(vars[m.j])] *= 2;
      costs[m.i] = std::move(m.cost);
      grew = true;
      break;
    }
  }
  for (std::size_t i = 0; i < targets.size(); ++i) {
    LayerSizes layer;
    layer.bindings = bindings[i];
    layer.shapes = costs[i].shapes;
    layer.flops = costs[i].flops;
    layer.params = costs[i].params;
    s.layers.push_back(std::move(layer));
  }
  s.flops = total(&LayerCost::flops);
  s.params = total(&LayerCost::params);
  return {std::move(s), {}};
}

}  // namespace opevo::kas
