#include "ui/widgets/shipped_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace opevo::ui {

QStringList shippedDirCandidates(const char* env, const QString& installed,
                                 const QString& sourceDir) {
  QStringList candidates;
  if (qEnvironmentVariableIsSet(env)) candidates << qEnvironmentVariable(env);
  candidates << QCoreApplication::applicationDirPath() + QStringLiteral("/../share/opevo-studio/") +
                    installed;
  if (!sourceDir.isEmpty()) candidates << sourceDir;
  return candidates;
}

QString shippedDir(const char* env, const QString& installed, const QString& sourceDir) {
  for (const QString& c : shippedDirCandidates(env, installed, sourceDir))
    if (QFileInfo(c).isDir()) return QDir(c).canonicalPath();
  return {};
}

}  // namespace opevo::ui
