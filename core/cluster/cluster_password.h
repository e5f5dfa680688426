#pragma once

#include <string>

namespace opevo::cluster {

// The cluster's password, never taken from the command line (it would show in `ps` and in shell
// histories): the first line of passwordFile when one is given, else $OPEVO_CLUSTER_PASSWORD,
// else the first line of the file $OPEVO_CLUSTER_PASSWORD_FILE names. Empty when none is set.
// Throws InputError naming the file when it cannot be read or holds no password.
std::string clusterPassword(const std::string& passwordFile = {});

// "set OPEVO_CLUSTER_PASSWORD or give --password-file FILE": how to supply one, for messages.
std::string passwordHint();

}  // namespace opevo::cluster
