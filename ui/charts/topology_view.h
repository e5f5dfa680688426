#pragma once

#include <QColor>
#include <QGraphicsView>
#include <QStringList>
#include <memory>
#include <utility>
#include <vector>

namespace opevo::ui {

struct GraphLayout;
struct QwalkResult;
class VertexItem;

// A parameter's graph as Graphviz laid it out: one disc per vertex, its colour and area showing
// the exact q-walk probability, a ring for the sampled frequency when there is one, and the start
// vertex outlined. Wheel zooms about the cursor, dragging pans, clicking a vertex picks it. Labels
// are drawn in pixels, so zooming in spreads the vertices apart and gives crowded labels room;
// one that would cover another label or disc (below, above, beside or at a corner of its own)
// waits for that room. The start vertex is labelled first, always; then the likeliest first.
class TopologyView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit TopologyView(QWidget* parent = nullptr);
  ~TopologyView() override;

  // labels: each layout vertex formatted by its parameter.
  void setLayout(std::shared_ptr<const GraphLayout> layout, QStringList labels);
  const GraphLayout* graphLayout() const { return m_layout.get(); }
  // Per layout vertex; empty clears. Colour and size are relative to the largest probability.
  void setProbabilities(std::vector<double> probability, std::size_t startIndex);
  // The layout vertex outlined as the start.
  std::size_t startIndex() const { return m_start; }
  void setSampled(std::vector<double> frequency);
  // An exact result (and sampled frequencies, by the result's vertex index, or none): its graph
  // is a BFS from its start, the layout's from the first vertex, so they are matched by vertex.
  // Returns the largest probability drawn.
  double showDistribution(const QwalkResult& result, const std::vector<double>& sampled);
  void clearSampled() { setSampled({}); }
  // Fits the whole graph in view, filling it (up to kMaxFitZoom); done on every new graph and
  // resize until the user zooms.
  void fitGraph();
  // Zooms by factor keeping the scene point at viewPoint (viewport pixels) where it is, as the
  // wheel does at the pointer.
  void zoomAt(QPointF viewPoint, double factor);
  // The vertices whose labels are drawn now (the start first, then by probability), and the
  // pixels they take (for tests).
  std::vector<std::size_t> labelledVertices() const;
  std::vector<std::pair<std::size_t, QRectF>> placedLabels() const;
  // The graph's extent in scene units, discs and labels included.
  QRectF graphBounds() const { return m_graphBounds; }

  const std::vector<double>& probabilities() const { return m_probability; }
  const std::vector<double>& sampled() const { return m_sampled; }
  // For tests: the vertex's disc radius and colour as drawn.
  double radiusOf(std::size_t index) const;
  QColor colorOf(std::size_t index) const;
  QPoint viewPositionOf(std::size_t index) const;

  // log10 scale from maxP * 10^-decades() up to maxP, light to dark (a viridis-like ramp).
  static QColor rampColor(double fraction);
  static constexpr int kMaxDecades = 6;
  // The decades the colours span: those between the likeliest vertex and the least likely one
  // (at least 1, at most kMaxDecades). A fixed six gave perm:4's 24 vertices, within a decade of
  // each other, one colour.
  int decades() const { return m_decades; }
  // Scene units between neighbours (the median edge) after rescaling Graphviz's positions.
  static constexpr double kEdgeLength = 44;
  // A fitted graph is at most this much larger than its scene size (two vertices would fill the
  // view as far apart as it is wide); discs stop growing at kMaxDiscZoom.
  static constexpr double kMaxFitZoom = 6;
  static constexpr double kMaxDiscZoom = 1.5;

 signals:
  void vertexClicked(std::size_t index);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  // Fits the graph again as the view changes size (a page shown for the first time is laid out
  // after the graph was set), until the user zooms.
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void drawForeground(QPainter* painter, const QRectF& rect) override;

 private:
  bool m_zoomed = false;  // the user zoomed since the graph was set
  void restyle();
  void zoomChanged();

  QRectF m_graphBounds;
  double m_discScale = 1;  // discs' scene radius factor: 1 up to kMaxDiscZoom, smaller beyond
  std::shared_ptr<const GraphLayout> m_layout;
  QStringList m_labels;
  std::vector<QPointF> m_positions;  // scaled from the layout's
  std::vector<VertexItem*> m_items;
  std::vector<double> m_probability;
  std::vector<double> m_sampled;
  std::size_t m_start = 0;
  int m_decades = kMaxDecades;
};

}  // namespace opevo::ui
