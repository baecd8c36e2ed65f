// One value from a MySQL server of a process-kubelet pod, as root over TCP (kubelet suites).
#pragma once

#include <string>

namespace br::kube_sim::test {

/// The first column of the first row of `sql` run as root on `host`:3306 (2 s to connect, 5 s
/// to read or write); "" when the server cannot be reached, the query fails or returns nothing.
std::string root_scalar(const std::string& host, const std::string& root_password, const std::string& sql);

}  // namespace br::kube_sim::test
