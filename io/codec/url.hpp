// Percent-encoding of a URL query value or path segment (RFC 3986 unreserved characters kept).
#pragma once

#include <string>
#include <string_view>

namespace br {

std::string url_escape(std::string_view s);

}  // namespace br
