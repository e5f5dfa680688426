#pragma once

#include <QWidget>

#include "ui/controller/cluster_target.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace opevo::ui {

// Where the Cluster page connects: an address (HOST:PORT, unix:PATH or a socket path), where the
// password comes from (a file chosen here, else OPEVO_CLUSTER_PASSWORD: the password is never
// typed into, shown by or saved by the window), and Connect / Disconnect.
class ClusterConnectBar : public QWidget {
  Q_OBJECT

 public:
  explicit ClusterConnectBar(QWidget* parent = nullptr);

  ClusterTarget target() const;
  QString address() const;
  void setAddress(const QString& address);
  QString passwordFile() const { return m_passwordFile; }
  // Empty: the environment's password.
  void setPasswordFile(const QString& path);
  // While connected the form is frozen and the button disconnects.
  void setConnected(bool connected);
  bool connected() const { return m_connected; }

  QLineEdit* addressEdit() const { return m_address; }
  QPushButton* connectButton() const { return m_connect; }

 public slots:
  void browsePasswordFile();

 signals:
  void connectRequested();
  void disconnectRequested();

 private:
  void showPasswordSource();

  QLineEdit* m_address;
  QPushButton* m_passwordButton;
  QToolButton* m_clearPassword;
  QLabel* m_passwordSource;
  QPushButton* m_connect;
  QString m_passwordFile;
  bool m_connected = false;
};

}  // namespace opevo::ui
