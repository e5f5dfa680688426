#include "ui/widgets/cluster_connect_bar.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>

namespace opevo::ui {

ClusterConnectBar::ClusterConnectBar(QWidget* parent)
    : QWidget(parent),
      m_address(new QLineEdit(this)),
      m_passwordButton(new QPushButton(tr("Password file…"), this)),
      m_clearPassword(new QToolButton(this)),
      m_passwordSource(new QLabel(this)),
      m_connect(new QPushButton(tr("Connect"), this)) {
  m_address->setObjectName(QStringLiteral("clusterAddress"));
  m_address->setPlaceholderText(tr("HOST:PORT or unix:/path/to/redis.sock"));
  m_address->setToolTip(
      tr("Where opevo cluster serve listens: 127.0.0.1:6390 (its default), a node's address, or "
         "a Unix socket"));
  m_address->setClearButtonEnabled(true);
  m_passwordButton->setObjectName(QStringLiteral("clusterPasswordFile"));
  m_passwordButton->setToolTip(
      tr("A file whose first line is the cluster's password. The window keeps the file's name, "
         "never the password."));
  m_clearPassword->setObjectName(QStringLiteral("clusterPasswordClear"));
  m_clearPassword->setText(QStringLiteral("×"));
  m_clearPassword->setToolTip(tr("Use OPEVO_CLUSTER_PASSWORD instead of the file"));
  m_passwordSource->setObjectName(QStringLiteral("clusterPasswordSource"));
  m_passwordSource->setTextFormat(Qt::PlainText);
  m_connect->setObjectName(QStringLiteral("clusterConnect"));

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Cluster:"), this));
  layout->addWidget(m_address, 2);
  layout->addWidget(m_passwordButton);
  layout->addWidget(m_clearPassword);
  layout->addWidget(m_passwordSource, 1);
  layout->addWidget(m_connect);

  connect(m_passwordButton, &QPushButton::clicked, this, &ClusterConnectBar::browsePasswordFile);
  connect(m_clearPassword, &QToolButton::clicked, this, [this] { setPasswordFile(QString()); });
  connect(m_address, &QLineEdit::returnPressed, this, [this] {
    if (!m_connected) emit connectRequested();
  });
  connect(m_connect, &QPushButton::clicked, this, [this] {
    if (m_connected)
      emit disconnectRequested();
    else
      emit connectRequested();
  });
  showPasswordSource();
}

ClusterTarget ClusterConnectBar::target() const {
  return {address().toStdString(), m_passwordFile.toStdString()};
}

QString ClusterConnectBar::address() const {
  return m_address->text().trimmed();
}

void ClusterConnectBar::setAddress(const QString& address) {
  m_address->setText(address);
}

void ClusterConnectBar::setPasswordFile(const QString& path) {
  m_passwordFile = path;
  showPasswordSource();
}

void ClusterConnectBar::setConnected(bool connected) {
  m_connected = connected;
  m_connect->setText(connected ? tr("Disconnect") : tr("Connect"));
  m_address->setReadOnly(connected);
  m_passwordButton->setEnabled(!connected);
  m_clearPassword->setEnabled(!connected);
}

void ClusterConnectBar::browsePasswordFile() {
  const QString path = QFileDialog::getOpenFileName(this, tr("The cluster's password file"),
                                                    m_passwordFile, tr("All files (*)"));
  if (!path.isEmpty()) setPasswordFile(path);
}

void ClusterConnectBar::showPasswordSource() {
  m_clearPassword->setVisible(!m_passwordFile.isEmpty());
  const QString source = QString::fromStdString(passwordSource(target()));
  if (!m_passwordFile.isEmpty())
    m_passwordSource->setText(tr("password from %1").arg(QFileInfo(m_passwordFile).fileName()));
  else if (!source.isEmpty())
    m_passwordSource->setText(tr("password from %1").arg(source));
  else
    m_passwordSource->setText(tr("no password set (OPEVO_CLUSTER_PASSWORD is empty)"));
  m_passwordSource->setToolTip(source.isEmpty() ? QString() : tr("Read from %1").arg(source));
}

}  // namespace opevo::ui
