#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/factor_param.h"
#include "space/param_graph.h"
#include "space/param_spec.h"
#include "space/perm_param.h"
#include "space/search_space.h"
#include "space/text.h"

namespace opevo {
namespace {

TEST(FactorParam, Figure1aHasTenVertices) {
  FactorParam p("f", 8, 3);
  EXPECT_EQ(p.size().as64(), 10u);
  const ParamGraph g = buildGraph(p, p.first());
  EXPECT_EQ(g.size(), 10u);
  // (8,1,1) can only move a 2 out of the first position: two neighbours.
  EXPECT_EQ(p.degree(p.parse("8,1,1")), 2u);
  EXPECT_EQ(p.degree(p.parse("2,2,2")), 6u);
  EXPECT_EQ(p.degree(p.parse("2,1,4")), 4u);
}

TEST(FactorParam, NeighboursMoveOnePrimeFactor) {
  FactorParam p("f", 360, 3);  // 2^3 * 3^2 * 5
  std::vector<Vertex> out;
  const Vertex v = p.parse("12,5,6");
  p.neighbours(v, out);
  EXPECT_EQ(out.size(), p.degree(v));
  std::set<Vertex> unique(out.begin(), out.end());
  EXPECT_EQ(unique.size(), out.size());
  for (const Vertex& u : out) {
    EXPECT_TRUE(p.contains(u));
    int changed = 0;
    for (int i = 0; i < 3; ++i) changed += (u[i] != v[i]);
    EXPECT_EQ(changed, 2);
  }
}

TEST(FactorParam, ExactCountIsProductOfBinomials) {
  // 2^10 into 4: C(13,3) = 286; 720 = 2^4 3^2 5 into 3: C(6,2) C(4,2) C(3,2) = 15*6*3.
  EXPECT_EQ(FactorParam("m", 1024, 4).size().as64(), 286u);
  EXPECT_EQ(FactorParam("x", 720, 3).size().as64(), 270u);
  EXPECT_EQ(buildGraph(FactorParam("x", 720, 3), {720, 1, 1}).size(), 270u);
  EXPECT_EQ(FactorParam("p", 1000003, 4).size().as64(), 4u);  // a prime loop length
  EXPECT_EQ(FactorParam("one", 1, 5).size().as64(), 1u);
}

TEST(FactorParam, RandomIsUniform) {
  FactorParam p("f", 12, 3);  // 18 vertices
  Rng rng(7);
  std::map<Vertex, int> hits;
  const int draws = 180000;
  for (int i = 0; i < draws; ++i) ++hits[p.random(rng)];
  ASSERT_EQ(hits.size(), 18u);
  double chi2 = 0;
  for (const auto& [v, n] : hits) chi2 += (n - draws / 18.0) * (n - draws / 18.0) / (draws / 18.0);
  EXPECT_LT(chi2, 40.79);  // chi-square, 17 degrees of freedom, p = 0.001
}

TEST(FactorParam, LargeSpacesStepWithoutEnumerating) {
  FactorParam p("f", std::int64_t(1) << 30, 6);
  EXPECT_EQ(p.size().as64(), 324632u);
  Rng rng(3);
  Vertex v = p.random(rng);
  for (int i = 0; i < 1000; ++i) {
    v = p.randomNeighbour(v, rng);
    ASSERT_TRUE(p.contains(v));
  }
}

TEST(FactorParam, ParseRejectsWrongProduct) {
  FactorParam p("f", 8, 3);
  EXPECT_THROW(p.parse("3,3,3"), InputError);
  EXPECT_THROW(p.parse("8,1"), InputError);
  EXPECT_THROW(p.parse("a,b,c"), InputError);
  EXPECT_EQ(p.format(p.parse("(2, 2, 2)")), "2,2,2");
  try {
    p.parse("3,3,3");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a factorization of 8"), std::string::npos);
  }
}

TEST(FactorParam, APinnedSplitIsItsOnlyVertexAndSpellsItselfInItsSpec) {
  // A network task's output layout fixed by an earlier task: the same loop, one split.
  FactorParam p("layout.out_c", 64, 2, {4, 16});
  EXPECT_EQ(p.size().as64(), 1u);
  EXPECT_TRUE(p.contains({4, 16}));
  EXPECT_FALSE(p.contains({2, 32}));
  Rng rng(3);
  EXPECT_EQ(p.random(rng), (Vertex{4, 16}));
  EXPECT_EQ(p.first(), (Vertex{4, 16}));
  EXPECT_EQ(p.randomNeighbour({4, 16}, rng), (Vertex{4, 16}));
  std::vector<Vertex> out{{1, 64}};
  p.neighbours({4, 16}, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(p.degree({4, 16}), 0u);
  EXPECT_EQ(p.spec(), "factor:64:2=4,16");
  EXPECT_EQ(makeParameter("layout.out_c", p.spec())->spec(), p.spec());
  EXPECT_EQ(makeParameter("", "factor:64:2")->spec(), "factor:64:2");
  try {
    p.parse("2,32");
    ADD_FAILURE() << "2,32 parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not its one split 4,16"), std::string::npos) << e.what();
  }
  EXPECT_THROW(FactorParam("f", 64, 2, {3, 21}), InputError);
  EXPECT_THROW(makeParameter("", "factor:64:2=4,x"), InputError);
}

TEST(SearchSpace, ReplacingAParameterKeepsConstraintsAndDropsAStartPointItExcludes) {
  SearchSpace s;
  s.add(std::make_shared<FactorParam>("tile", 16, 2));
  s.add(std::make_shared<FactorParam>("reg", 16, 2));
  s.addConstraint("reg divides tile", [](const Config& c) { return c[0][1] % c[1][1] == 0; });
  s.setStartPoint({{2, 8}, {4, 4}});
  SearchSpace kept = s;
  kept.replace(0, std::make_shared<FactorParam>("tile", 16, 2, Vertex{2, 8}));
  ASSERT_TRUE(kept.startPoint().has_value());  // it still holds
  SearchSpace narrowed = s;
  narrowed.replace(0, std::make_shared<FactorParam>("tile", 16, 2, Vertex{8, 2}));
  EXPECT_FALSE(narrowed.startPoint().has_value());
  EXPECT_FALSE(narrowed.satisfies({{8, 2}, {4, 4}}));  // the constraint still reads index 0
  EXPECT_TRUE(narrowed.satisfies({{8, 2}, {8, 2}}));
  Rng rng(1);
  for (int i = 0; i < 20; ++i) EXPECT_EQ((*narrowed.randomValid(rng))[0], (Vertex{8, 2}));
  EXPECT_EQ(s.param(0).size().as64(), 5u);  // the copy it came from is whole
  EXPECT_THROW(narrowed.replace(0, std::make_shared<FactorParam>("reg", 16, 2)),
               std::invalid_argument);
}

// A parameter given twice is refused by name rather than the last value winning.
TEST(SearchSpace, ParseRefusesAParameterNamedTwice) {
  SearchSpace s;
  s.add(std::make_shared<FactorParam>("tile", 16, 2));
  s.add(std::make_shared<FactorParam>("reg", 16, 2));
  EXPECT_EQ(s.format(s.parse("tile=2,8; reg=4,4")), "tile=2,8; reg=4,4");
  try {
    s.parse("tile=2,8; reg=4,4; tile=16,1");
    ADD_FAILURE() << "a repeated parameter parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'tile' twice"), std::string::npos) << e.what();
  }
}

TEST(PermParam, Figure1bSixVerticesOfDegreeThree) {
  PermParam p("p", 3);
  EXPECT_EQ(p.size().as64(), 6u);
  const ParamGraph g = buildGraph(p, p.first());
  ASSERT_EQ(g.size(), 6u);
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g.degree(i), 3u);
}

TEST(PermParam, TwelveItemsStepsStayPermutations) {
  PermParam p("p", 12);
  EXPECT_EQ(p.size().as64(), 479001600u);
  Rng rng(5);
  Vertex v = p.random(rng);
  for (int i = 0; i < 1000; ++i) {
    const Vertex u = p.randomNeighbour(v, rng);
    ASSERT_TRUE(p.contains(u));
    int changed = 0;
    for (int k = 0; k < 12; ++k) changed += (u[k] != v[k]);
    ASSERT_EQ(changed, 2);
    v = u;
  }
  EXPECT_EQ(p.degree(v), 66u);
  EXPECT_EQ(PermParam("p", 25).size().toString(), "15511210043330985984000000");
}

TEST(DiscreteParam, Figure1cIsAPath) {
  DiscreteParam p("d", {4, 2, 3, 1});
  const ParamGraph g = buildGraph(p, p.parse("1"));
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(p.degree(p.parse("1")), 1u);
  EXPECT_EQ(p.degree(p.parse("2")), 2u);
  EXPECT_EQ(p.degree(p.parse("3")), 2u);
  EXPECT_EQ(p.degree(p.parse("4")), 1u);
  EXPECT_EQ(g.distance.back(), 3);
  std::vector<Vertex> out;
  p.neighbours(p.parse("2"), out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(p.format(out[0]), "1");
  EXPECT_EQ(p.format(out[1]), "3");
  EXPECT_THROW(p.parse("5"), InputError);
}

TEST(ChoiceParam, Figure1dIsComplete) {
  ChoiceParam p("c", {"a", "b", "c", "d", "e", "f"});
  const ParamGraph g = buildGraph(p, p.parse("a"));
  ASSERT_EQ(g.size(), 6u);
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g.degree(i), 5u);
  EXPECT_EQ(p.format(p.parse("e")), "e");
  EXPECT_THROW(p.parse("g"), InputError);
}

TEST(ParamSpec, BuildsEachKind) {
  EXPECT_EQ(makeParameter("", "factor:8:3")->kind(), ParamKind::Factor);
  EXPECT_EQ(makeParameter("", "perm:4")->size().as64(), 24u);
  EXPECT_EQ(makeParameter("", "discrete:0,512,1500")->format({2}), "1500");
  EXPECT_EQ(makeParameter("", "choice:relu,tanh")->format({0}), "relu");
  EXPECT_EQ(makeParameter("", "discrete:0.5,0.25")->spec(), "discrete:0.25,0.5");
}

TEST(ParamSpec, AChoiceHoldingACommaReadsBackFromItsSpec) {
  // A measured tuple imported as a choice (an exported run's factor "(1,16,16,2)"), and a
  // backslash, each read back whole rather than split at their commas.
  const ChoiceParam p("tile_n", {"(1,16,16,2)", "(2,8,16,2)", "a\\b", "plain"});
  EXPECT_EQ(p.spec(), "choice:(1\\,16\\,16\\,2),(2\\,8\\,16\\,2),a\\\\b,plain");
  const auto back = makeParameter("tile_n", p.spec());
  ASSERT_EQ(back->kind(), ParamKind::Choice);
  EXPECT_EQ(dynamic_cast<const ChoiceParam&>(*back).choices(), p.choices());
  EXPECT_EQ(back->spec(), p.spec());
}

TEST(ParamSpec, AChoiceHoldingACommaIsNamedPlainOrEscaped) {
  const ChoiceParam p("act", {"a,b", "c"});
  EXPECT_EQ(p.parse("a,b"), Vertex{0});
  EXPECT_EQ(p.parse("a\\,b"), Vertex{0});  // as its spec writes it: choice:a\,b,c
  try {
    p.parse("d");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("one of 'a,b', 'c'"), std::string::npos) << e.what();
  }
}

TEST(Text, CountedIsSingularForOneOnly) {
  EXPECT_EQ(counted(1, "trial", "trials"), "1 trial");
  EXPECT_EQ(counted(0, "trial", "trials"), "0 trials");
  EXPECT_EQ(counted(16, "task", "tasks"), "16 tasks");
}

TEST(ParamSpec, BadInputNamesTheProblem) {
  auto message = [](const char* spec) {
    try {
      makeParameter("", spec);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("factor:0:3").find("C must be"), std::string::npos);
  EXPECT_NE(message("factor:8:0").find("nu must be"), std::string::npos);
  EXPECT_NE(message("perm:0").find("n must be"), std::string::npos);
  EXPECT_NE(message("discrete:").find("no values"), std::string::npos);
  EXPECT_NE(message("discrete:1,x").find("not a number"), std::string::npos);
  EXPECT_NE(message("choice:a,b,a").find("'a' twice"), std::string::npos);
  EXPECT_NE(message("discrete:1,2,1").find("twice"), std::string::npos);
  EXPECT_NE(message("factor:8").find("accepted form"), std::string::npos);
  EXPECT_NE(message("tile:8:3").find("unknown kind"), std::string::npos);
  EXPECT_NE(message("factor:-8:3").find("C must be"), std::string::npos);
}

}  // namespace
}  // namespace opevo
