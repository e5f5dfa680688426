#pragma once

#include <QGraphicsView>
#include <memory>
#include <vector>

namespace opevo::ui {

struct NetworkLayout;
class LayerItem;

// A network drawn as Graphviz laid it out: one box per input and layer, filled by its share of
// the network's latency (white: none yet or not a kernel of its own, dark red: the largest),
// its name, kind, output shape and share written in it. Wheel zooms about the cursor, dragging
// pans.
class NetworkGraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit NetworkGraphView(QWidget* parent = nullptr);
  ~NetworkGraphView() override;

  void setNetworkLayout(std::shared_ptr<const NetworkLayout> layout);
  const NetworkLayout* networkLayout() const { return m_layout.get(); }
  // Per layout node: its step's fraction of the latency (NaN: none). Colours are relative to the
  // largest share.
  void setShares(std::vector<double> shares);
  const std::vector<double>& shares() const { return m_shares; }
  void fitGraph();
  // The view's width that shows the graph at 1:1, with the vertical scroll bar a graph taller
  // than the view needs; 0 with no network.
  int naturalWidth() const;

  // For tests: the fill of a node as drawn.
  QColor colorOf(std::size_t node) const;
  // White to dark red.
  static QColor rampColor(double fraction);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  // Fits the graph again as the view changes width (a page shown for the first time is laid out
  // after the graph was set), until the user zooms.
  void resizeEvent(QResizeEvent* event) override;

 private:
  // The vertical scroll bar's width where the graph at scale k is taller than the view's room,
  // else 0: both the fit and naturalWidth leave room for it.
  int barAt(double k) const;

  bool m_zoomed = false;  // the user zoomed since the network was set
  std::shared_ptr<const NetworkLayout> m_layout;
  std::vector<LayerItem*> m_items;
  std::vector<double> m_shares;
};

}  // namespace opevo::ui
