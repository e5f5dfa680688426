#pragma once

#include <QObject>
#include <QString>
#include <cstdint>

#include "store/run_deletion.h"
#include "ui/jobs/latest_job.h"

class QWidget;

namespace opevo::ui {

// Deleting a stored network run from the Networks page, as History deletes runs: the store
// checks it off the GUI thread (statuses as they stand now), a dialog names what goes (its task
// runs and their trials), and the deletion runs off the GUI thread, checked again inside its
// transaction.
class NetworkRunDeletion : public QObject {
  Q_OBJECT

 public:
  explicit NetworkRunDeletion(QWidget* dialogParent);

  void start(const QString& storePath, std::int64_t networkId);
  bool busy() const { return m_job.busy(); }

 signals:
  void refused(const QString& message);  // nothing was deleted, and why
  void deleted(const QString& message, std::int64_t networkId);

 private:
  struct Job {
    NetworkDeletionCheck check;
    QString error;
  };
  void confirm(const QString& storePath, std::int64_t networkId, const NetworkAndTrials& n);
  void remove(const QString& storePath, std::int64_t networkId);

  QWidget* m_dialogParent;
  LatestJob<Job> m_job;
};

}  // namespace opevo::ui
