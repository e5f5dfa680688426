#include "ui/widgets/help_window.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QStyle>
#include <QTextBrowser>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdlib>
#include <set>

#include "ui/widgets/message_label.h"
#include "ui/widgets/screen_fit.h"
#include "ui/widgets/shipped_files.h"

namespace opevo::ui {
namespace {

#ifdef OPEVO_DOCS_DIR
const QString kSourceDocs = QStringLiteral(OPEVO_DOCS_DIR);
#else
const QString kSourceDocs;
#endif

// The guide's screenshots are 1600 px wide; drawn at full size each page would scroll sideways.
// The document keeps each image as first loaded, so a page is loaded again when the width changes.
class GuideBrowser final : public QTextBrowser {
 public:
  explicit GuideBrowser(QWidget* parent) : QTextBrowser(parent) {
    m_rescale.setSingleShot(true);
    m_rescale.setInterval(250);  // once the user stops dragging the window's edge
    QObject::connect(&m_rescale, &QTimer::timeout, this, [this] { rescale(); });
  }

  QVariant loadResource(int type, const QUrl& name) override {
    QVariant resource = QTextBrowser::loadResource(type, name);
    if (type != QTextDocument::ImageResource) return resource;
    QImage image;
    if (resource.canConvert<QImage>()) image = resource.value<QImage>();
    if (image.isNull() && resource.canConvert<QByteArray>())
      image.loadFromData(resource.toByteArray());
    const int width = imageWidth();
    m_widths.insert(width);
    if (image.isNull() || image.width() <= width) return resource;
    return image.scaledToWidth(width, Qt::SmoothTransformation);
  }

 protected:
  void doSetSource(const QUrl& name, QTextDocument::ResourceType type) override {
    m_widths.clear();  // a page (or the same one again) loads its images afresh
    QTextBrowser::doSetSource(name, type);
  }
  void resizeEvent(QResizeEvent* event) override {
    QTextBrowser::resizeEvent(event);
    m_rescale.start();
  }

 private:
  // Before the window is laid out the viewport is tiny: the window's first width, roughly.
  int imageWidth() const {
    const int width = viewport()->width() - 40;
    return width < 200 ? 700 : width;
  }
  void rescale() {
    // Images are loaded as the page is laid out, so one page may hold several widths.
    const int width = imageWidth();
    if (source().isEmpty() || std::all_of(m_widths.begin(), m_widths.end(),
                                          [&](int w) { return std::abs(w - width) < 40; }))
      return;
    QScrollBar* bar = verticalScrollBar();
    const double at = bar->maximum() > 0 ? static_cast<double>(bar->value()) / bar->maximum() : 0;
    reload();
    bar->setValue(static_cast<int>(at * bar->maximum()));
  }

  QTimer m_rescale;
  std::set<int> m_widths;  // the widths the page's images were drawn at
};

// A page's title: its first heading, else its file name.
QString titleOf(const QString& path) {
  QFile file(path);
  if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
    QTextStream in(&file);
    for (int i = 0; i < 20 && !in.atEnd(); ++i) {
      const QString line = in.readLine().trimmed();
      if (line.startsWith(QStringLiteral("# "))) return line.mid(2).trimmed();
    }
  }
  return QFileInfo(path).fileName();
}

bool isPage(const QString& path) {
  return path.endsWith(QStringLiteral(".md"), Qt::CaseInsensitive);
}

}  // namespace

HelpWindow::HelpWindow(QWidget* parent)
    : QWidget(parent, Qt::Window),
      m_root(docsDir()),
      m_contents(new QListWidget(this)),
      m_browser(new GuideBrowser(this)),
      m_back(new QToolButton(this)),
      m_forward(new QToolButton(this)),
      m_message(makeMessageLabel(QStringLiteral("helpMessage"), MessageKind::Note, this)) {
  setObjectName(QStringLiteral("helpWindow"));
  setWindowTitle(tr("OpEvo Studio — User guide"));
  // A window of its own: Esc or the platform's Close (Ctrl+W) closes it, as a viewer's does.
  for (const QKeySequence& key :
       {QKeySequence(Qt::Key_Escape), QKeySequence(QKeySequence::Close)}) {
    auto* shortcut = new QShortcut(key, this);
    connect(shortcut, &QShortcut::activated, this, &QWidget::close);
  }
  m_contents->setObjectName(QStringLiteral("helpContents"));
  // Titles are long ("Canvas on this CPU: a search of 50 trained kernels"): wrapped, not cut.
  m_contents->setWordWrap(true);
  m_contents->setResizeMode(QListView::Adjust);
  m_contents->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_browser->setObjectName(QStringLiteral("helpBrowser"));
  // Links are followed here: a page of the guide in this window, anything else outside it.
  m_browser->setOpenLinks(false);

  m_back->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
  m_back->setToolTip(tr("Back (Alt+Left)"));
  m_back->setShortcut(QKeySequence::Back);
  m_forward->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
  m_forward->setToolTip(tr("Forward (Alt+Right)"));
  m_forward->setShortcut(QKeySequence::Forward);
  auto* home = new QToolButton(this);
  home->setIcon(style()->standardIcon(QStyle::SP_DirHomeIcon));
  home->setToolTip(tr("The guide's first page (README)"));
  m_back->setEnabled(false);
  m_forward->setEnabled(false);

  auto* bar = new QHBoxLayout;
  bar->addWidget(m_back);
  bar->addWidget(m_forward);
  bar->addWidget(home);
  bar->addStretch(1);

  auto* split = new QSplitter(this);
  split->addWidget(m_contents);
  split->addWidget(m_browser);
  split->setStretchFactor(1, 1);
  split->setSizes({250, 750});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(m_message);
  layout->addWidget(split, 1);
  resizeToFit(this, QSize(1000, 700));

  connect(m_back, &QToolButton::clicked, m_browser, &QTextBrowser::backward);
  connect(m_forward, &QToolButton::clicked, m_browser, &QTextBrowser::forward);
  connect(home, &QToolButton::clicked, this, [this] { openPage(QStringLiteral("README.md")); });
  connect(m_browser, &QTextBrowser::backwardAvailable, m_back, &QWidget::setEnabled);
  connect(m_browser, &QTextBrowser::forwardAvailable, m_forward, &QWidget::setEnabled);
  connect(m_browser, &QTextBrowser::anchorClicked, this, &HelpWindow::follow);
  connect(m_browser, &QTextBrowser::sourceChanged, this, &HelpWindow::pageShown);
  connect(m_contents, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) openPage(item->data(Qt::UserRole).toString());
  });

  if (m_root.isEmpty()) {
    m_browser->setHtml(
        tr("<p>The user guide (README.md and docs/) was not found. It was looked for in:</p>"
           "<ul><li>%1</li></ul>"
           "<p>Set OPEVO_DOCS to the folder that holds README.md, or read the guide in the "
           "source tree.</p>")
            .arg(docsCandidates()
                     .join(QStringLiteral("\n"))
                     .toHtmlEscaped()
                     .replace(QStringLiteral("\n"), QStringLiteral("</li><li>"))));
    return;
  }
  listPages();
  openPage(QStringLiteral("README.md"));
}

QStringList HelpWindow::docsCandidates() {
  QStringList candidates = shippedDirCandidates("OPEVO_DOCS", QStringLiteral("doc"), kSourceDocs);
  // The user's choice, when made, is the only place looked in: a wrong one is said, not passed by.
  if (qEnvironmentVariableIsSet("OPEVO_DOCS")) candidates = candidates.mid(0, 1);
  return candidates;
}

QString HelpWindow::docsDir() {
  for (const QString& dir : docsCandidates())
    if (QFileInfo(dir + QStringLiteral("/README.md")).isFile()) return QDir(dir).canonicalPath();
  return {};
}

void HelpWindow::listPages() {
  QStringList pages{QStringLiteral("README.md")};
  for (const QString& folder : {QStringLiteral("docs"), QStringLiteral("docs/results")}) {
    const QDir dir(m_root + QLatin1Char('/') + folder);
    for (const QString& name : dir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name))
      pages << folder + QLatin1Char('/') + name;
  }
  bool headed = false;
  for (const QString& page : pages) {
    if (!headed && page.startsWith(QStringLiteral("docs/results/"))) {
      headed = true;
      // A heading, not a page: the measured results follow the guide's own pages.
      auto* heading = new QListWidgetItem(tr("Results"), m_contents);
      heading->setFlags(Qt::NoItemFlags);
      QFont bold = heading->font();
      bold.setBold(true);
      heading->setFont(bold);
    }
    auto* item = new QListWidgetItem(titleOf(m_root + QLatin1Char('/') + page), m_contents);
    item->setData(Qt::UserRole, page);
    item->setToolTip(page);
  }
}

bool HelpWindow::openPage(const QString& relativePath) {
  if (m_root.isEmpty()) return false;
  const QString path = QDir(m_root).filePath(relativePath);
  if (!QFileInfo(path).isFile() || !isPage(path)) {
    say(tr("%1 is not a page of the guide").arg(relativePath));
    return false;
  }
  const QUrl url = QUrl::fromLocalFile(path);
  if (m_browser->source().adjusted(QUrl::RemoveFragment) != url)
    m_browser->setSource(url, QTextDocument::MarkdownResource);
  return true;
}

void HelpWindow::follow(const QUrl& link) {
  const QString scheme = link.scheme();
  if (scheme == QStringLiteral("http") || scheme == QStringLiteral("https") ||
      scheme == QStringLiteral("mailto")) {
    if (!QDesktopServices::openUrl(link))
      say(tr("No web browser could open %1").arg(link.toString()));
    return;
  }
  const QUrl target = m_browser->source().resolved(link);
  if (!target.isLocalFile()) {
    say(tr("%1 cannot be opened from the guide").arg(link.toString()));
    return;
  }
  const QString path = target.toLocalFile();
  const QString shown = QDir(m_root).relativeFilePath(path);
  if (!QFileInfo::exists(path)) {
    say(tr("%1 is not there (the guide refers to the source tree, which this installation may "
           "not have)")
            .arg(shown));
    return;
  }
  if (isPage(path) && path.startsWith(m_root + QLatin1Char('/'))) {
    m_browser->setSource(target, QTextDocument::MarkdownResource);
    return;
  }
  // A source file or a folder the guide points to: the desktop's viewer for it.
  if (!QDesktopServices::openUrl(target)) say(tr("No program could open %1").arg(shown));
}

void HelpWindow::pageShown(const QUrl& url) {
  const QString page = QDir(m_root).relativeFilePath(url.toLocalFile());
  setWindowTitle(tr("OpEvo Studio — User guide — %1").arg(page));
  say({});  // a page shown answers whatever was said about the last link
  // The list follows the page shown, without opening it again.
  const QSignalBlocker block(m_contents);
  int row = -1;  // none: a page the list does not hold (clicking the old one opens it again)
  for (int i = 0; i < m_contents->count() && row < 0; ++i)
    if (m_contents->item(i)->data(Qt::UserRole).toString() == page) row = i;
  m_contents->setCurrentRow(row);
}

QString HelpWindow::currentPage() const {
  const QUrl source = m_browser->source();
  if (m_root.isEmpty() || source.isEmpty()) return {};
  return QDir(m_root).relativeFilePath(source.toLocalFile());
}

QString HelpWindow::message() const {
  return m_message->isHidden() ? QString() : m_message->text();
}

void HelpWindow::say(const QString& text) {
  showMessage(m_message, text);
}

}  // namespace opevo::ui
