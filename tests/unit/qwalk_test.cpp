#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <unordered_map>

#include "common/error.h"
#include "space/factor_param.h"
#include "space/param_spec.h"
#include "space/perm_param.h"
#include "space/qwalk.h"

namespace opevo {
namespace {

double total(const WalkDistribution& d) {
  return std::accumulate(d.probability.begin(), d.probability.end(), 0.0);
}

double probabilityOf(const Parameter& p, const WalkDistribution& d, const char* vertex) {
  const Vertex v = p.parse(vertex);
  for (std::size_t i = 0; i < d.graph.size(); ++i)
    if (d.graph.vertices[i] == v) return d.probability[i];
  ADD_FAILURE() << vertex << " not in graph";
  return -1;
}

TEST(QWalk, Figure2Ordering) {
  FactorParam p("f", 8, 3);
  const WalkDistribution d = exactDistribution(p, p.parse("8,1,1"), 0.5);
  ASSERT_EQ(d.graph.size(), 10u);
  EXPECT_NEAR(total(d), 1.0, 1e-9);
  const double p222 = probabilityOf(p, d, "2,2,2");
  EXPECT_GT(p222, probabilityOf(p, d, "2,1,4"));
  EXPECT_GT(p222, probabilityOf(p, d, "2,4,1"));
  // Nearer vertices are likelier: the mean probability falls with distance.
  std::vector<double> sum(5, 0.0), count(5, 0.0);
  for (std::size_t i = 0; i < d.graph.size(); ++i) {
    sum[d.graph.distance[i]] += d.probability[i];
    count[d.graph.distance[i]] += 1;
  }
  for (int k = 1; k < 5 && count[k] > 0; ++k)
    EXPECT_LT(sum[k] / count[k], sum[k - 1] / count[k - 1]) << "distance " << k;
  // The start keeps at least the chance of never stepping.
  EXPECT_GE(probabilityOf(p, d, "8,1,1"), 0.5);
}

TEST(QWalk, LargerQSpreadsWider) {
  FactorParam p("f", 8, 3);
  const auto narrow = exactDistribution(p, p.parse("8,1,1"), 0.5);
  const auto wide = exactDistribution(p, p.parse("8,1,1"), 0.7);
  EXPECT_GT(narrow.probability[0], wide.probability[0]);
}

TEST(QWalk, SumsToOneOnManyRandomGraphs) {
  Rng rng(2024);
  const std::vector<std::string> kinds = {"factor", "perm", "discrete", "choice"};
  for (int trial = 0; trial < 200; ++trial) {
    std::string spec;
    switch (trial % 4) {
      case 0:
        spec = std::string("factor:").append(std::to_string(1 + rng.below(5000)));
        spec.append(":").append(std::to_string(1 + rng.below(5)));
        break;
      case 1: spec = std::string("perm:").append(std::to_string(1 + rng.below(6))); break;
      case 2: {
        spec = "discrete:";
        const int n = 1 + int(rng.below(20));
        for (int i = 0; i < n; ++i) spec.append(i ? "," : "").append(std::to_string(i * 3 + 1));
        break;
      }
      default: {
        spec = "choice:";
        const int n = 1 + int(rng.below(10));
        for (int i = 0; i < n; ++i) spec.append(i ? ",c" : "c").append(std::to_string(i));
      }
    }
    const ParameterPtr p = makeParameter("", spec);
    const double q = 0.01 + 0.98 * rng.uniform();
    const auto d = exactDistribution(*p, p->random(rng), q);
    EXPECT_NEAR(total(d), 1.0, 1e-9) << spec << " q=" << q;
    for (double x : d.probability) EXPECT_GE(x, 0.0);
  }
}

TEST(QWalk, ConjugateGradientAgreesWithSeries) {
  FactorParam p("f", 720, 4);
  for (double q : {0.3, 0.9, 0.995}) {
    const auto a = exactDistribution(p, p.first(), q, kMaxGraphVertices, WalkMethod::Series);
    const auto b =
        exactDistribution(p, p.first(), q, kMaxGraphVertices, WalkMethod::ConjugateGradient);
    ASSERT_EQ(a.graph.size(), b.graph.size());
    EXPECT_NEAR(total(b), 1.0, 1e-9);
    for (std::size_t i = 0; i < a.graph.size(); ++i)
      EXPECT_NEAR(a.probability[i], b.probability[i], 1e-10) << "q=" << q;
  }
}

TEST(QWalk, SamplerMatchesExactDistribution) {
  for (const char* spec : {"factor:8:3", "perm:4", "discrete:1,2,3,4,5", "choice:a,b,c"}) {
    const ParameterPtr p = makeParameter("", spec);
    const Vertex start = p->first();
    const auto d = exactDistribution(*p, start, 0.6);
    std::unordered_map<Vertex, std::size_t, VertexHash> index;
    for (std::size_t i = 0; i < d.graph.size(); ++i) index[d.graph.vertices[i]] = i;
    std::vector<double> hits(d.graph.size(), 0.0);
    Rng rng(11);
    const int samples = 200000;
    for (int s = 0; s < samples; ++s) hits[index.at(qWalk(*p, start, 0.6, rng))] += 1;
    double chi2 = 0;
    for (std::size_t i = 0; i < hits.size(); ++i) {
      const double expected = samples * d.probability[i];
      chi2 += (hits[i] - expected) * (hits[i] - expected) / expected;
    }
    // p = 0.001 critical values for df = n - 1 <= 23 stay below 50.
    EXPECT_LT(chi2, 50.0) << spec;
  }
}

TEST(QWalk, SmallQStaysAtStart) {
  FactorParam p("f", 64, 3);
  const auto d = exactDistribution(p, p.parse("4,4,4"), 1e-9);
  EXPECT_NEAR(d.probability[0], 1.0, 1e-8);
  Rng rng(1);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(qWalk(p, p.parse("4,4,4"), 1e-9, rng), p.parse("4,4,4"));
}

TEST(QWalk, SingleVertexGraph) {
  FactorParam p("f", 1, 3);
  const auto d = exactDistribution(p, p.first(), 0.9);
  ASSERT_EQ(d.graph.size(), 1u);
  EXPECT_NEAR(d.probability[0], 1.0, 1e-12);
}

TEST(QWalk, HundredThousandVertexGraph) {
  // 2^30 into 6 parts: 324,632 vertices, well above the 100,000 the exact distribution must reach.
  FactorParam p("f", std::int64_t(1) << 30, 6);
  const auto d = exactDistribution(p, p.first(), 0.5);
  EXPECT_EQ(d.graph.size(), 324632u);
  EXPECT_NEAR(total(d), 1.0, 1e-9);
}

TEST(QWalk, BadInput) {
  FactorParam p("f", 8, 3);
  EXPECT_THROW(exactDistribution(p, p.first(), 1.0), InputError);
  EXPECT_THROW(exactDistribution(p, p.first(), -0.1), InputError);
  EXPECT_THROW(exactDistribution(p, p.first(), 0.0), InputError);
  EXPECT_THROW(exactDistribution(p, {3, 3, 3}, 0.5), InputError);
  PermParam big("p", 25);
  try {
    exactDistribution(big, big.first(), 0.5);
    FAIL() << "perm:25 must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("15511210043330985984000000 vertices"), std::string::npos);
  }
}

}  // namespace
}  // namespace opevo
