#pragma once

#include <QGraphicsView>
#include <memory>

namespace opevo::ui {

struct KasDagLayout;

// A candidate kernel's micro-DAG as Graphviz laid it out: one box per primitive, coloured by its
// class (rearrangement, arithmetic, the weighted fc, blending), its primitive and symbolic shape
// written in it. Fitted to the view (never enlarged past 1:1); wheel zooms, dragging pans.
class KasDagView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit KasDagView(QWidget* parent = nullptr);

  // Null clears the view; `note` is shown instead of a picture ("no candidate selected").
  void setDagLayout(std::shared_ptr<const KasDagLayout> layout);
  void setNote(const QString& note);
  const KasDagLayout* dagLayout() const { return m_layout.get(); }
  void fitDag();

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  std::shared_ptr<const KasDagLayout> m_layout;
};

}  // namespace opevo::ui
