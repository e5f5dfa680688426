#include "ui/widgets/pair_or_tabs.h"

#include <QResizeEvent>
#include <QSplitter>
#include <QStackedLayout>
#include <QTabWidget>

namespace opevo::ui {

PairOrTabs::PairOrTabs(QWidget* first, const QString& firstTitle, QWidget* second,
                       const QString& secondTitle, int readableWidth, QWidget* parent)
    : QWidget(parent),
      m_first(first),
      m_second(second),
      m_firstTitle(firstTitle),
      m_secondTitle(secondTitle),
      m_readableWidth(readableWidth),
      m_split(new QSplitter(Qt::Horizontal)),
      m_tabs(new QTabWidget),
      m_stack(new QStackedLayout(this)) {
  m_split->setObjectName(QStringLiteral("pairSplitter"));
  m_tabs->setObjectName(QStringLiteral("pairTabs"));
  m_tabs->setDocumentMode(true);
  m_stack->addWidget(m_split);
  m_stack->addWidget(m_tabs);
  m_split->addWidget(m_first);
  m_split->addWidget(m_second);
  m_stack->setCurrentWidget(m_split);
}

void PairOrTabs::setEqualShares() {
  m_split->setStretchFactor(0, 1);
  m_split->setStretchFactor(1, 1);
  m_split->setSizes({500, 500});
}

QSize PairOrTabs::minimumSizeHint() const {
  return m_tabs->minimumSizeHint();
}

void PairOrTabs::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrange(event->size().width() < 2 * m_readableWidth);
}

void PairOrTabs::arrange(bool tabbed) {
  if (tabbed == m_tabbed) return;
  m_tabbed = tabbed;
  if (tabbed) {
    // addTab takes each panel out of the splitter.
    m_tabs->addTab(m_first, m_firstTitle);
    m_tabs->addTab(m_second, m_secondTitle);
    m_tabs->setCurrentIndex(m_shownTab);
    m_stack->setCurrentWidget(m_tabs);
  } else {
    m_shownTab = m_tabs->currentIndex();
    m_tabs->clear();  // the panels stay, hidden; the splitter takes them back
    m_split->addWidget(m_first);
    m_split->addWidget(m_second);
    m_first->show();
    m_second->show();
    m_stack->setCurrentWidget(m_split);
  }
}

}  // namespace opevo::ui
