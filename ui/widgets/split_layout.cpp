#include "ui/widgets/split_layout.h"

#include <QSettings>
#include <QSplitter>
#include <QString>

namespace opevo::ui {
namespace {

constexpr const char* kVersionProperty = "opevoDefaultSplitVersion";

QString stateKey(const QSplitter& splitter) {
  return QStringLiteral("splitters/") + splitter.objectName();
}

QString versionKey(const QSplitter& splitter) {
  return QStringLiteral("splitterVersions/") + splitter.objectName();
}

}  // namespace

void setDefaultSplitVersion(QSplitter* splitter, int version) {
  splitter->setProperty(kVersionProperty, version);
}

int defaultSplitVersion(const QSplitter* splitter) {
  return splitter->property(kVersionProperty).toInt();
}

void saveSplit(QSettings& settings, const QSplitter& splitter) {
  settings.setValue(stateKey(splitter), splitter.saveState());
  settings.setValue(versionKey(splitter), defaultSplitVersion(&splitter));
}

bool restoreSplit(const QSettings& settings, QSplitter& splitter) {
  const QVariant state = settings.value(stateKey(splitter));
  if (!state.isValid()) return false;
  // Saved under an older default (none saved: before versions were kept, version 0).
  if (settings.value(versionKey(splitter), 0).toInt() < defaultSplitVersion(&splitter))
    return false;
  return splitter.restoreState(state.toByteArray());
}

}  // namespace opevo::ui
