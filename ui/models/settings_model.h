#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <map>
#include <string>
#include <vector>

#include "tuners/settings.h"

namespace opevo::ui {

// One algorithm's settings, editable: every SettingInfo of its defaults with the value as typed.
// Each edit is checked by core's own TunerSettings::set, so the GUI accepts exactly what the CLI
// accepts; a refused value stays as typed, its cell turns red and the message replaces the help.
class SettingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, ValueColumn, RangeColumn, HelpColumn, ColumnCount };

  SettingsModel(std::string algorithm, TunerSettings defaults, QObject* parent = nullptr);

  const std::string& algorithm() const { return m_algorithm; }
  // The values that differ from the defaults, as text, for makeTuner.
  std::map<std::string, std::string> changedValues() const;
  // "opevo setting q=1 is out of range (...)", one per refused value.
  QStringList errors() const;
  bool valid() const { return errors().isEmpty(); }
  // Sets a value as typed; false when refused (it is kept, and shown as refused).
  bool setValueText(const QString& name, const QString& text);
  void restoreDefaults();
  // Every value as typed, name -> text (for QSettings).
  std::map<std::string, std::string> allValues() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 signals:
  void validityChanged();

 private:
  struct Row {
    SettingInfo info;
    QString text;
    QString error;
  };
  QString check(const SettingInfo& info, const QString& text) const;

  std::string m_algorithm;
  TunerSettings m_defaults;
  std::vector<Row> m_rows;
};

}  // namespace opevo::ui
