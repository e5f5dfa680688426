#pragma once

#include <QWidget>

#include "layout/layout.h"
#include "layout/layout_picture.h"

class QLabel;

namespace opevo::ui {

// One plane of a tensor as a layout stores it: a cell per element, coloured by its tile (the
// blocks that split and unfold make) and shaded by its place in memory (light first, dark last),
// thick lines between tiles.
class LayoutGrid : public QWidget {
  Q_OBJECT

 public:
  explicit LayoutGrid(QWidget* parent = nullptr);
  void setPicture(layout::LayoutPicture picture);
  const layout::LayoutPicture& picture() const { return m_picture; }
  QSize sizeHint() const override { return {260, 220}; }
  QSize minimumSizeHint() const override { return {120, 100}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  layout::LayoutPicture m_picture;
  std::vector<int> m_rank;  // per cell: its place in memory among the cells drawn
};

// A tensor's layout: its primitives, the physical dims they make, the address of an element, and
// a grid of one plane.
class LayoutView : public QWidget {
  Q_OBJECT

 public:
  explicit LayoutView(QWidget* parent = nullptr);
  // Shows l's plane (rowDim x colDim, other dims at 0). Throws InputError for unknown dims.
  void showLayout(const QString& title, const layout::Layout& l, const std::string& rowDim,
                  const std::string& colDim);
  LayoutGrid* grid() const { return m_grid; }
  QString primitivesText() const;
  QString addressText() const;

 private:
  QLabel* m_title;
  QLabel* m_primitives;
  QLabel* m_physical;
  QLabel* m_address;
  LayoutGrid* m_grid;
  QLabel* m_caption;
};

}  // namespace opevo::ui
