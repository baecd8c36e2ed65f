// Base64 (RFC 4648, standard alphabet): Kubernetes Secret data, kubeconfig certificates.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace br {

/// Standard base64 with padding.
std::string base64_encode(std::string_view in);

/// Standard base64 (padding optional, line breaks ignored); nullopt on a character outside the
/// alphabet.
std::optional<std::string> base64_decode(std::string_view in);

}  // namespace br
