#pragma once

#include <QWidget>
#include <cstdint>
#include <optional>

#include "kas/kas_search.h"

class QComboBox;
class QDoubleSpinBox;
class QPushButton;
class QSpinBox;
class QTableView;

namespace opevo::ui {

class KasSearchModel;

// The Kernels page's left side: the store's kernel searches (newest first; selecting one shows
// it, Resume continues an interrupted one) and the form of a new search: how many kernels, the
// FLOPs and weights budget, schedules tuned per layer, and the training each kernel gets (epochs,
// training images, and the test images its accuracy is measured on), the algorithm that tunes each
// kernel's schedule and the seed its kernels are drawn with. Every field starts at the CLI's
// default (kas::KasSearchSettings), so a search left as it is matches `opevo kas search`.
class KasSearchPanel : public QWidget {
  Q_OBJECT

 public:
  explicit KasSearchPanel(QWidget* parent = nullptr);

  // The search the form describes (the rest of its settings keep the CLI's defaults).
  kas::KasSearchSettings settings() const;
  void setBusy(bool busy);
  // The search chosen in the list, or nullopt.
  std::optional<std::int64_t> selectedSearch() const;
  // Selects a listed search (false when it is not listed).
  bool selectSearch(std::int64_t id);

  KasSearchModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  QSpinBox* candidatesBox() const { return m_candidates; }
  QDoubleSpinBox* flopsBox() const { return m_flops; }
  QDoubleSpinBox* paramsBox() const { return m_params; }
  QSpinBox* trialsBox() const { return m_trials; }
  QSpinBox* epochsBox() const { return m_epochs; }
  QSpinBox* imagesBox() const { return m_images; }
  QSpinBox* testImagesBox() const { return m_testImages; }
  QComboBox* algorithmBox() const { return m_algorithm; }
  QSpinBox* seedBox() const { return m_seed; }
  QPushButton* startButton() const { return m_start; }
  QPushButton* stopButton() const { return m_stop; }
  QPushButton* resumeButton() const { return m_resume; }
  QPushButton* reloadButton() const { return m_reload; }

 signals:
  void searchSelected(std::int64_t id);
  void startRequested();
  void stopRequested();
  void resumeRequested(std::int64_t id);
  void reloadRequested();

 private:
  void updateButtons();

  KasSearchModel* m_model;
  QTableView* m_view;
  QSpinBox* m_candidates;
  QDoubleSpinBox* m_flops;
  QDoubleSpinBox* m_params;
  QSpinBox* m_trials;
  QSpinBox* m_epochs;
  QSpinBox* m_images;
  QSpinBox* m_testImages;
  QComboBox* m_algorithm;
  QSpinBox* m_seed;
  QPushButton* m_start;
  QPushButton* m_stop;
  QPushButton* m_resume;
  QPushButton* m_reload;
  bool m_busy = false;
};

}  // namespace opevo::ui
