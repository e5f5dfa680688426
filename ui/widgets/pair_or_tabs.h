#pragma once

#include <QString>
#include <QWidget>

class QSplitter;
class QStackedLayout;
class QTabWidget;

namespace opevo::ui {

// Two panels side by side while each can have `readableWidth` pixels, else one at a time in two
// tabs. Two charts squeezed side by side into a small window each elide their title, axis labels
// and legend until neither says anything (the Networks page at 800x600); a tab each keeps them
// whole, and a wider window shows both at once again.
class PairOrTabs : public QWidget {
  Q_OBJECT

 public:
  PairOrTabs(QWidget* first, const QString& firstTitle, QWidget* second, const QString& secondTitle,
             int readableWidth, QWidget* parent = nullptr);

  bool tabbed() const { return m_tabbed; }
  // Side by side, the two panels share the width equally (by default the splitter divides it
  // by their size hints).
  void setEqualShares();
  // The tabs' minimum: side by side needs more, but then the panels move into the tabs.
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void arrange(bool tabbed);

  QWidget* m_first;
  QWidget* m_second;
  QString m_firstTitle;
  QString m_secondTitle;
  int m_readableWidth;
  QSplitter* m_split;
  QTabWidget* m_tabs;
  QStackedLayout* m_stack;
  bool m_tabbed = false;
  int m_shownTab = 0;  // the tab a user chose, shown again when the window narrows again
};

}  // namespace opevo::ui
