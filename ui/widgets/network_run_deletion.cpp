#include "ui/widgets/network_run_deletion.h"

#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QWidget>
#include <exception>

#include "space/text.h"
#include "store/store.h"

namespace opevo::ui {
namespace {

// "Run 5 is being tuned now (...): stop it, ...; nothing was deleted."
QString sentence(const std::string& text) {
  QString s = QString::fromStdString(text);
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s + QLatin1Char('.');
}

}  // namespace

NetworkRunDeletion::NetworkRunDeletion(QWidget* dialogParent)
    : QObject(dialogParent), m_dialogParent(dialogParent) {}

void NetworkRunDeletion::start(const QString& storePath, std::int64_t networkId) {
  // One at a time: a second start would drop the question or the deletion in flight.
  if (storePath.isEmpty() || m_job.busy()) return;
  if (auto* open = m_dialogParent->findChild<QMessageBox*>(QStringLiteral("deleteNetworkBox"))) {
    open->raise();
    return;
  }
  m_job.start(
      [path = storePath.toStdString(), networkId] {
        Job job;
        try {
          job.check = Store(path, Store::Opening::ExistingOnly).checkNetworkDeletion({networkId});
        } catch (const std::exception& e) {
          job.error = QString::fromUtf8(e.what());
        }
        return job;
      },
      [this, storePath, networkId](const Job& job) {
        if (!job.error.isEmpty())
          emit refused(tr("The network run cannot be deleted: %1").arg(job.error));
        else if (!job.check.refusals.empty())
          emit refused(sentence(refusalText(job.check.refusals)));
        else if (!job.check.networks.empty())
          confirm(storePath, networkId, job.check.networks.front());
      });
}

void NetworkRunDeletion::confirm(const QString& storePath, std::int64_t networkId,
                                 const NetworkAndTrials& n) {
  auto* box = new QMessageBox(
      QMessageBox::Warning, tr("Delete network run"),
      tr("Delete %1 from %2?")
          .arg(QString::fromStdString(describeNetwork(n)), QFileInfo(storePath).fileName()),
      QMessageBox::Cancel, m_dialogParent);
  box->setObjectName(QStringLiteral("deleteNetworkBox"));
  box->setInformativeText(
      tr("Its plan, its %1 and their trials go with it. This cannot be undone.")
          .arg(QString::fromStdString(
              counted(static_cast<int>(n.network.taskRuns.size()), "task run", "task runs"))));
  QPushButton* remove = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
  remove->setObjectName(QStringLiteral("confirmDelete"));
  box->setDefaultButton(QMessageBox::Cancel);  // Enter keeps the run
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(box, &QMessageBox::buttonClicked, this,
          [this, remove, storePath, networkId](QAbstractButton* clicked) {
            if (clicked == remove) this->remove(storePath, networkId);
          });
  box->open();
}

void NetworkRunDeletion::remove(const QString& storePath, std::int64_t networkId) {
  m_job.start(
      [path = storePath.toStdString(), networkId] {
        Job job;
        try {
          job.check.networks =
              Store(path, Store::Opening::ExistingOnly).deleteNetworks({networkId});
        } catch (const std::exception& e) {
          job.error = QString::fromUtf8(e.what());
        }
        return job;
      },
      [this, networkId](const Job& job) {
        if (!job.error.isEmpty())
          emit refused(tr("The network run cannot be deleted: %1.").arg(job.error));
        else if (!job.check.networks.empty())
          emit deleted(
              tr("Deleted %1.")
                  .arg(QString::fromStdString(describeNetwork(job.check.networks.front()))),
              networkId);
      });
}

}  // namespace opevo::ui
