#pragma once

#include <memory>

#include "tuners/model_based_tuner.h"

namespace opevo {

// OpEvo guided by a cost model: the product's default algorithm. OpEvo's search (parents are the
// best configurations measured; children are recombined from them and mutated by a q-random walk
// on each parameter's topology) proposes many more children than a batch; an XGBoost model
// trained on everything measured (failures as speed 0, so it learns where configurations fail)
// ranks them, and only the most promising are measured. The model learns the square of speed over
// the best (label_power 2), so its fit goes to telling the top configurations apart. A trial on
// a GPU costs seconds and a proposal microseconds: screening is where few-trial tuning is won. The
// first batch is spread over the space (farthest-point picks from random candidates) so the first
// model sees all of it; when the best stops improving, the walks grow longer (q rises) to leave the
// basin. Each batch also climbs (the best configuration's untried neighbours, and those of the
// best configuration on the other side of a flag) and guesses far from the best.
class OpEvoModelTuner final : public ModelBasedTuner {
 public:
  OpEvoModelTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  static TunerSettings defaultSettings();

  std::string name() const override { return "opevo-m"; }
  std::size_t preferredBatch() const override;

 protected:
  void beforePick() override;

 private:
  std::vector<Config> spreadOut(std::size_t n);
  std::vector<Config> screened(std::size_t n);
  std::vector<const Observation*> validBestFirst() const;
  std::vector<const Config*> parentsOf(const std::vector<const Observation*>& known) const;
  std::vector<Config> bestPredicted(const std::vector<Config>& candidates, std::size_t n,
                                    std::size_t minDistance);
  std::vector<Config> climbing(const std::vector<const Config*>& parents, std::size_t n);
  std::vector<Vertex> moves(std::size_t i, const Vertex& v) const;
  std::vector<Config> pairMoves(const Config& p) const;
  void oneMoveAway(const Config& p, std::size_t i, const std::vector<Config>& exclude,
                   std::vector<Config>& around) const;
  std::vector<Config> flagClimbing(const std::vector<const Observation*>& known, const Config& best,
                                   std::size_t n);
  std::vector<Config> unsettled(const std::vector<const Config*>& parents,
                                const std::vector<Config>& candidates, std::size_t n,
                                std::size_t minDistance, const std::vector<Config>& planned);
  std::vector<Config> ranked(const std::vector<Config>& candidates, std::size_t n,
                             std::size_t minDistance, const std::vector<Config>& taken);
  static std::vector<Config> pickByScore(const std::vector<Config>& candidates,
                                         const std::vector<float>& scores, std::size_t n,
                                         std::size_t minDistance, const std::vector<Config>& taken);
  std::vector<Config> basinClimbing(const std::vector<const Config*>& parents, std::size_t n,
                                    std::size_t away);
  std::vector<Config> farthestFromMeasured(const std::vector<Config>& candidates, std::size_t n,
                                           std::size_t top);
  std::optional<Config> child(const std::vector<const Config*>& parents, double q);
  double currentQ();

  void trainEnsemble();

  std::size_t m_batch;
  std::size_t m_earlyBatch;
  std::size_t m_earlyTrials;
  std::uint64_t m_seed;
  // Extra models trained on bootstrap resamples of the data: where they disagree, the model is
  // unsure, and an optimistic score (mean + kappa * spread) sends a measurement there.
  std::vector<std::unique_ptr<CostModel>> m_ensemble;
  std::size_t m_flagTurn = 0;      // which flag's other side `flagClimbing` climbs next
  std::size_t m_unsettleTurn = 0;  // which settled parameter `unsettle` reopens next
  std::size_t m_plannedAt = static_cast<std::size_t>(-1);  // history size at the last plan
  double m_best = 0;
  std::size_t m_bestAt = 0;  // history size when m_best was found
  bool m_stalled = false;    // no better configuration for `patience` trials
};

}  // namespace opevo
