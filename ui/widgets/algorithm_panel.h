#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "ui/controller/race_types.h"

class QLabel;
class QListWidget;
class QTableView;

namespace opevo::ui {

class SettingsModel;

// Which algorithms race, and their settings: a checkable list of every algorithm core offers,
// and for the highlighted one a table of its settings, each checked as it is typed.
class AlgorithmPanel : public QWidget {
  Q_OBJECT

 public:
  explicit AlgorithmPanel(QWidget* parent = nullptr);

  QStringList algorithmNames() const;
  QStringList checkedNames() const;
  void setChecked(const QStringList& names);
  // Shows this algorithm's settings (as clicking it in the list does).
  bool showSettingsOf(const QString& name);
  SettingsModel* settingsModel(const QString& name) const;
  // The checked algorithms with their changed settings, in list order.
  std::vector<AlgorithmChoice> choices() const;
  // A message per refused setting of a checked algorithm.
  QStringList errors() const;
  // The settings table's Meaning column shows while it has room for a few words a line; else the
  // meanings are listed below the table.
  bool meaningsInTable() const;
  QLabel* helpLabel() const { return m_helpLabel; }
  // Under the list: "2 checked: opevo, opevo-m", so what races is said even when the list is
  // scrolled (a user raced opevo beside opevo-m unseen, its row scrolled out of view).
  QLabel* checkedLabel() const { return m_checkedLabel; }

 signals:
  void changed();

 protected:
  // The list as tall as its rows at this width: every algorithm shows, checked or not.
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void showSettings(int row);
  void fitList();
  // Hides the Meaning column when too narrow to read (at 1024 pixels it had 60, a word a line).
  void fitMeanings();
  // Below the table: the current setting's meaning, or every setting's when the column is hidden.
  void showHelp();
  void showChecked();

  QListWidget* m_list;
  QTableView* m_settingsView;
  QLabel* m_settingsTitle;
  QLabel* m_helpLabel;
  QLabel* m_checkedLabel;
  QLabel* m_errorLabel;
  std::vector<SettingsModel*> m_models;  // one per registry entry, in registry order
};

}  // namespace opevo::ui
