#pragma once

#include <QString>
#include <QUrl>
#include <QWidget>

class QLabel;
class QListWidget;
class QTextBrowser;
class QToolButton;

namespace opevo::ui {

// The user guide in a window of its own (Help > User guide, F1): README and docs/ as shipped with
// the program, rendered from their Markdown, with a list of contents and back/forward. Links
// between the guide's pages stay in the window; web pages and the source files the guide points
// to open in the desktop's viewer. Without the guide's files, the window names where it looked.
class HelpWindow : public QWidget {
  Q_OBJECT

 public:
  explicit HelpWindow(QWidget* parent = nullptr);

  // The folder holding README.md and docs/: OPEVO_DOCS, the installed copy, or the source tree.
  static QString docsDir();
  // Where docsDir() looks, in order: OPEVO_DOCS alone when it is set.
  static QStringList docsCandidates();
  // Shows a page of the guide, relative to docsDir() ("README.md", "docs/kas.md"); false and a
  // message when there is no such page.
  bool openPage(const QString& relativePath);
  // Follows a link as a click on it does, relative to the page shown.
  void follow(const QUrl& link);

  QString currentPage() const;  // relative to docsDir(); empty when none is shown
  QTextBrowser* browser() const { return m_browser; }
  QListWidget* contents() const { return m_contents; }
  QString message() const;

 private:
  void listPages();
  void pageShown(const QUrl& url);
  void say(const QString& text);

  QString m_root;
  QListWidget* m_contents;
  QTextBrowser* m_browser;
  QToolButton* m_back;
  QToolButton* m_forward;
  QLabel* m_message;
};

}  // namespace opevo::ui
