#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace opevo::cluster {

// The cluster's password, never taken from the command line (it would show in `ps` and in shell
// histories): the first line of passwordFile when one is given, else $OPEVO_CLUSTER_PASSWORD,
// else the first line of the file $OPEVO_CLUSTER_PASSWORD_FILE names. Empty when none is set.
// Throws InputError naming the file when it cannot be read or holds no password.
std::string clusterPassword(const std::string& passwordFile = {});

// The file clusterPassword reads (passwordFile, else $OPEVO_CLUSTER_PASSWORD_FILE when
// $OPEVO_CLUSTER_PASSWORD is not set); empty when the password comes from the environment.
std::string passwordFilePath(const std::string& passwordFile = {});

// "the password file F can be read by others than its owner (mode 0644): chmod 600 F" when the
// file clusterPassword reads is readable or writable by its group or others; nullopt otherwise.
// A warning, not a refusal: the file works, but whoever can read it can use the cluster.
std::optional<std::string> passwordFileWarning(const std::string& passwordFile = {});

// The fewest characters `opevo cluster serve` accepts in a password: the server may listen on a
// network, and Redis answers as many guesses as it is sent.
inline constexpr std::size_t kMinPasswordLength = 12;

// Throws InputError when the password is too short to serve with (kMinPasswordLength), saying
// how to make a good one. Clients are not checked: they use what the server was given.
void checkServePassword(const std::string& password);

// "set OPEVO_CLUSTER_PASSWORD or OPEVO_CLUSTER_PASSWORD_FILE, or give --password-file FILE":
// how to supply one, for messages.
std::string passwordHint();

// The help of every command's --password-file option, one text for all.
std::string passwordFileHelp();

}  // namespace opevo::cluster
