#pragma once

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace opevo::ui {

class PresetsPanel;
class QwalkPanel;

// The studio's window. Pages are tabs of one QTabWidget so later pages (runs, charts, history)
// slot in beside "Spaces" without reshaping this one.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  PresetsPanel* presetsPanel() const { return m_presetsPanel; }
  QwalkPanel* qwalkPanel() const { return m_qwalkPanel; }
  QTabWidget* pages() const { return m_pages; }
  // The backend label's text: "probing…" until the background probe answers.
  QString backendText() const;

 private:
  void startBackendProbe();

  QTabWidget* m_pages;
  PresetsPanel* m_presetsPanel;
  QwalkPanel* m_qwalkPanel;
  QLabel* m_backendLabel;
};

}  // namespace opevo::ui
